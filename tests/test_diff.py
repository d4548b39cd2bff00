"""``ttanalyze diff``: op matching, per-op and total changes on the o0/o1/o2 fixture pairs, thresholds
(command line, pyproject.toml, --config), exit statuses."""

from __future__ import annotations

import copy
import dataclasses
import json
from types import SimpleNamespace

import pytest

from ttanalyze import diff as D
from ttanalyze.rules import run

from .conftest import REAL, analyze_path

FIX = REAL[0].parent.parent  # fixtures/real


def path(case: str):
    return FIX / case / "ttnn.mlir"


_SIDES: dict[str, D.Side] = {}


def side(case: str) -> D.Side:
    if case not in _SIDES:
        a = analyze_path(path(case))
        _SIDES[case] = D.side(a, run(a))
    return _SIDES[case]


def pair(before: str, after: str, **thresholds) -> D.ProgramDiff:
    return D.diff(side(before), side(after), D.Thresholds(**thresholds))


def change(d: D.ProgramDiff, name: str, loc: str) -> D.OpChange:
    [c] = [c for c in d.ops if c.match.after is not None and c.match.after.name == name
           and D.location_key(c.match.after) == loc]
    return c


# ---------------------------------------------------------------------------
# matching
# ---------------------------------------------------------------------------


def _op(name: str, loc: str, shape: str = "32x32"):
    v = SimpleNamespace(type=f"tensor<{shape}xbf16>")
    return SimpleNamespace(name=name, loc_name=loc, operands=[v], results=[v], index=0)


def test_matching_location_then_duplicates_then_position():
    b = [_op("ttnn.to_layout", "x"), _op("ttnn.add", "jit(f)/add"), _op("ttnn.add", "jit(f)/add", "64x64"),
         _op("ttnn.relu", "max"), _op("ttnn.deallocate", "max"), _op("ttnn.sum", "", "1x32")]
    a = [_op("ttnn.to_layout", "x"), _op("ttnn.to_memory_config", "jit(g)/add_mem_reconfig"),
         _op("ttnn.add", "jit(g)/add", "64x64"),  # one add of the two left: the one with the same types
         _op("ttnn.relu", "max"), _op("ttnn.exp", "exp"), _op("ttnn.sum", "", "1x64")]
    got = [(m.before and b.index(m.before), m.after and a.index(m.after), m.how) for m in D.match_ops(b, a)]
    assert got == [(0, 0, "location"), (None, 1, "added"), (2, 2, "location"), (3, 3, "location"),
                   (None, 4, "added"),
                   (5, 5, "position"),   # no location: same name, same relative position (last), other types
                   (1, None, "removed")]


def test_matching_mlp_o0_o2():
    d = pair("mlp_o0", "mlp_o2")
    # every op of o0 keeps its location; o2 adds four to_memory_config (the optimizer's reshards)
    assert d.counts() == {"location": 7, "signature": 0, "position": 0, "added": 4, "removed": 0}
    assert {c.match.after.name for c in d.ops if c.match.how == "added"} == {"ttnn.to_memory_config"}


def test_matching_across_function_names_mochi():
    # jit(mochi_conv3d_gn_constpad)/... and jit(mochi_conv3d_gn_edgepad)/... match once the prefix is dropped;
    # the constant pad (reshape, to_layout, pad, reshape at loc "pad") became slices and concats
    d = pair("mochi_small_constpad_o0", "mochi_small_edgepad_o0")
    removed = [c.match.before.name for c in d.ops if c.match.how == "removed"]
    assert sorted(removed) == ["ttnn.pad", "ttnn.reshape", "ttnn.reshape", "ttnn.to_layout"]
    added = {c.match.after.name for c in d.ops if c.match.how == "added"}
    assert {"ttnn.slice_static", "ttnn.concat", "ttnn.repeat_interleave"} <= added
    conv = change(d, "ttnn.conv3d", "conv_general_dilated")
    assert conv.match.how == "location" and not conv.changed


# ---------------------------------------------------------------------------
# what changes on the pairs
# ---------------------------------------------------------------------------


def test_mlp_matmul_cbs_follow_the_program_config():
    d = pair("mlp_o0", "mlp_o2")
    mm = change(d, "ttnn.matmul", "dot_general")
    assert "matmul_program_config" in mm.changed_attrs and mm.types_changed
    # Independently, from the 1D mcast-in1 factory (matmul_multicore_reuse_mcast_1d_program_factory.cpp,
    # process_mcast_in1_program): a = 32x256 bf16 (Mt 1, Kt 8), b = 256x10 (Nt 1), tile 2048 B.
    # o0: in0_block_w 4 -> num_blocks 2, so in0 and in1 are double-buffered: c_0 = 1*4*2 = 8 tiles
    #     (16,384 B), c_1 = 1*4*2 = 8 tiles (16,384 B), c_4 out = 1 tile (2,048 B), and with
    #     fp32_dest_acc_en the intermediate c_5 is a separate f32 tile (4,096 B): 38,912 B.
    # o2: in0_block_w 8 -> num_blocks 1, single-buffered; a is height-sharded in L1, so c_0 (8 tiles) is
    #     backed by its buffer, and so is c_4 by the sharded output (bf16, no fp32 accumulation: c_5 shares
    #     it): only c_1 = 1*8*1 = 8 tiles = 16,384 B is allocated in the CB region.
    assert (mm.before["cb_per_core"], mm.after["cb_per_core"], mm.delta("cb_per_core")) == (38912, 16384, -22528)
    assert mm.after["ns"] < mm.before["ns"]
    # the relu now reads and writes width-sharded L1: no DRAM traffic, no CB of its own (both sharded)
    relu = change(d, "ttnn.relu", "max")
    assert (relu.before["dram_bytes"], relu.after["dram_bytes"]) == (32768, 0)


def test_mlp_totals_o0_o1_o2():
    d1, d2 = pair("mlp_o0", "mlp_o1"), pair("mlp_o0", "mlp_o2")
    assert (d2.totals_before["peak_l1_per_core"], d2.totals_after["peak_l1_per_core"]) == (38912, 34816)
    assert d2.totals_after["latency_ns"] < d2.totals_before["latency_ns"]
    assert d2.totals_after["dram_bytes"] < d2.totals_before["dram_bytes"]
    assert not d2.regressions
    # o1 drops the IR program configs: ttnn picks its own; same DRAM bytes, smaller CBs
    assert d1.totals_after["dram_bytes"] == d1.totals_before["dram_bytes"]
    assert d1.totals_after["max_cb_per_core"] < d1.totals_before["max_cb_per_core"]
    assert [c.match.after.name for c in d1.ops if c.changed] == ["ttnn.linear", "ttnn.matmul"]


def test_transformer_ffn_o2_second_linear_is_slower():
    d = pair("transformer_ffn_o0", "transformer_ffn_o2")
    lin = [c for c in d.ops if c.match.after is not None and c.match.after.name == "ttnn.linear"]
    assert len(lin) == 2 and all(c.match.how == "location" for c in lin)
    assert lin[1].after["ns"] > 2 * lin[1].before["ns"]
    assert lin[1].after["cb_per_core"] < lin[1].before["cb_per_core"]
    [r] = d.regressions
    assert r.what == "latency_ns" and r.option == "--max-latency-increase"
    assert d.totals_after["peak_l1_per_core"] < d.totals_before["peak_l1_per_core"]


def test_findings_persist_modulo_numbers_and_wording():
    # attention: TTA002 on the same reshape, %names and wording differ (o2 adds the placement)
    d = pair("attention_o0", "attention_o2")
    [f] = d.findings
    assert f.status == "persists" and f.before.message != f.after.message
    # mochi constpad -> edgepad: the pad's reshapes are gone, with their two TTA003 findings
    d = pair("mochi_small_constpad_o0", "mochi_small_edgepad_o0")
    statuses = [(c.status, c.finding.rule) for c in d.findings]
    assert statuses.count(("gone", "TTA003")) == 2 and statuses.count(("persists", "TTA003")) + \
        statuses.count(("persists", "TTA002")) == 9
    assert "new" not in {s for s, _ in statuses}


def test_message_key():
    assert D.message_key("tile tensor %3 64x4x16x16 holds 121.5 tiles") == D.message_key(
        "tile tensor %17 64x4x32x16 holds 64 tiles")


def test_identical_programs_change_nothing():
    d = pair("transformer_ffn_o2", "transformer_ffn_o2", latency=0, l1=0, cb=0, dram=0, fail_on_new="info")
    assert not any(c.changed for c in d.ops) and d.counts()["added"] == d.counts()["removed"] == 0
    assert all(c.status == "persists" for c in d.findings) and not d.regressions


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------


def test_cli_identical_exit_0(cli):
    r = cli("diff", path("attention_o2"), path("attention_o2"), "--max-latency-increase", "0", "--fail-on-new", "info")
    assert r.exit_code == 0, r.output
    assert "no op changed" in r.stdout and "no regression" in r.stdout
    doc = json.loads(cli("diff", path("attention_o2"), path("attention_o2"), "--format", "json").stdout)
    assert doc["schema"] == "ttanalyze.diff/1" and not any(op["changed"] for op in doc["ops"])
    assert doc["totals"]["latency_ns"]["delta"] == 0 and doc["regressions"] == []


def test_cli_mlp_o0_o2_report(cli):
    r = cli("diff", path("mlp_o0"), path("mlp_o2"))
    assert r.exit_code == 0, r.output
    assert "38,912 -> 16,384 (-22,528)" in r.stdout        # the matmul's CBs
    assert "4 added, 0 removed" in r.stdout
    doc = json.loads(cli("diff", path("mlp_o0"), path("mlp_o2"), "-f", "json").stdout)
    [mm] = [op for op in doc["ops"] if op["after"] and op["after"]["name"] == "ttnn.matmul"]
    assert mm["cb_per_core"] == {"before": 38912, "after": 16384, "delta": -22528}
    assert doc["totals"]["peak_l1_per_core"]["before"] == 38912
    assert doc["thresholds"]["sources"]["latency"] == "default"


def test_cli_threshold_violation_exit_1(cli):
    r = cli("diff", path("transformer_ffn_o0"), path("transformer_ffn_o2"))
    assert r.exit_code == 1
    assert "predicted latency: 318.52 us -> 351.39 us (+10.3%) exceeds --max-latency-increase 5%" in r.stdout
    assert cli("diff", path("transformer_ffn_o0"), path("transformer_ffn_o2"),
               "--max-latency-increase", "15%").exit_code == 0
    assert cli("diff", path("transformer_ffn_o0"), path("transformer_ffn_o2"),
               "--max-latency-increase", "off").exit_code == 0
    # back from o2 to o0: peak L1, the largest CB region and DRAM traffic all grow
    r = cli("diff", path("mlp_o2"), path("mlp_o0"), "--max-dram-increase", "25")
    assert r.exit_code == 1
    assert "peak L1 per core: 34,816 B -> 38,912 B (+11.8%) exceeds --max-l1-increase 5%" in r.stdout
    assert "max CB per core: 32,768 B -> 38,912 B (+18.8%) exceeds --max-cb-increase 5%" in r.stdout
    assert "DRAM traffic" not in r.stdout.split("regressions:")[1]


def test_cli_fail_on_new(cli):
    # edgepad -> constpad brings back the two TTA003 warnings of the pad's reshapes
    args = ("diff", path("mochi_small_edgepad_o0"), path("mochi_small_constpad_o0"))
    assert cli(*args).exit_code == 0
    r = cli(*args, "--fail-on-new", "warning")
    assert r.exit_code == 1
    assert "new findings at or above warning: 2 warning (TTA003) exceeds --fail-on-new warning" in r.stdout
    assert r.stdout.count("  new:  ") == 2


def test_pyproject_thresholds(cli, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.ttanalyze.diff]\nmax-latency-increase = 50\nfail-on-new = "warning"\n')
    work = tmp_path / "sub" / "dir"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)   # the nearest pyproject.toml above the current directory
    r = cli("diff", path("transformer_ffn_o0"), path("transformer_ffn_o2"))
    assert r.exit_code == 0, r.output
    assert "--max-latency-increase 50%" in r.stdout and str(tmp_path / "pyproject.toml") in r.stdout
    assert cli("diff", path("mochi_small_edgepad_o0"), path("mochi_small_constpad_o0")).exit_code == 1
    # the command line wins
    assert cli("diff", path("transformer_ffn_o0"), path("transformer_ffn_o2"),
               "--max-latency-increase", "1").exit_code == 1
    # a nearer pyproject.toml without the table: defaults
    (work / "pyproject.toml").write_text('[project]\nname = "y"\n')
    assert cli("diff", path("transformer_ffn_o0"), path("transformer_ffn_o2")).exit_code == 1
    # --config names one explicitly (underscores accepted, false switches a check off)
    cfg = tmp_path / "gate.toml"
    cfg.write_text("[tool.ttanalyze.diff]\nmax_latency_increase = false\n")
    r = cli("diff", path("transformer_ffn_o0"), path("transformer_ffn_o2"), "--config", cfg)
    assert r.exit_code == 0 and "--max-latency-increase off" in r.stdout


def test_thresholds_resolution(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ttanalyze.diff]\nmax-l1-increase = '2.5%'\n")
    t = D.resolve_thresholds({"cb": None}, cwd=tmp_path)
    assert (t.latency, t.l1, t.cb, t.dram, t.fail_on_new) == (5.0, 2.5, None, 5.0, "error")
    assert t.sources == {"latency": "default", "l1": str(tmp_path / "pyproject.toml"), "cb": "command line",
                         "dram": "default", "fail_on_new": "default", "allow_uncosted": "default"}


# ---------------------------------------------------------------------------
# input errors: exit 2, one line file:line:col
# ---------------------------------------------------------------------------


def test_malformed_ir_exit_2(cli, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text('module {\n  func.func @main() {\n    %0 = "ttnn.relu"(%1 : \n  }\n}\n')
    r = cli("diff", path("mlp_o0"), bad)
    assert r.exit_code == 2
    [line] = r.stderr.strip().splitlines()
    assert line.startswith(f"{bad}:") and ": error: " in line
    assert line.split(":")[1].isdigit() and line.split(":")[2].isdigit()
    assert cli("diff", path("mlp_o0"), tmp_path / "missing.mlir").exit_code == 2


@pytest.mark.parametrize("text, where, message", [
    ("[tool.ttanalyze.diff]\nmax-l1-increase = 5\nmax-cb-increase = = 3\n", "3:19", "invalid TOML"),
    ("[tool.ttanalyze.diff]\nmax-l1-increase = 5\n  max-latency = 3\n", "3:3", "unknown key 'max-latency'"),
    ("[tool.ttanalyze.diff]\nfail-on-new = 'warnings'\n", "2:1", "fail-on-new: expected one of"),
    ("[tool.ttanalyze.diff]\nmax-dram-increase = -4\n", "2:1", "expected a percentage >= 0"),
    ("[tool.ttanalyze.diff]\nallow-uncosted = 'yes'\n", "2:1", "allow-uncosted: expected true or false"),
    # a level of tool.ttanalyze.diff that is not a table: an input error at its key, not a crash
    ("[project]\nname = 'x'\n[tool]\nttanalyze = 5\n", "4:1", "'tool.ttanalyze' must be a table"),
    ("tool = 3\n", "1:1", "'tool' must be a table"),
    ("[tool.ttanalyze]\ndiff = [1, 2]\n", "2:1", "'tool.ttanalyze.diff' must be a table"),
])
def test_bad_pyproject_exit_2(cli, tmp_path, monkeypatch, text, where, message):
    (tmp_path / "pyproject.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    r = cli("diff", path("mlp_o0"), path("mlp_o2"))
    assert r.exit_code == 2
    [line] = r.stderr.strip().splitlines()
    assert line.startswith(f"{tmp_path / 'pyproject.toml'}:{where}: error: ") and message in line, line


def test_bad_options_exit_2(cli, tmp_path):
    r = cli("diff", path("mlp_o0"), path("mlp_o2"), "--max-l1-increase", "lots")
    assert r.exit_code == 2 and "--max-l1-increase: expected a percentage" in r.stderr
    cfg = tmp_path / "empty.toml"
    cfg.write_text("[tool.other]\nx = 1\n")
    r = cli("diff", path("mlp_o0"), path("mlp_o2"), "--config", cfg)
    assert r.exit_code == 2 and r.stderr.startswith(f"{cfg}:1:1: error: no [tool.ttanalyze.diff] table")


def test_bad_table_shape_in_config_file(cli, tmp_path):
    cfg = tmp_path / "gate.toml"
    cfg.write_text("[tool]\nttanalyze = 5\n")
    with pytest.raises(D.InputError) as exc:
        D.read_config(cfg, required=True)
    assert exc.value.path == str(cfg)
    assert exc.value.message == "'tool.ttanalyze' must be a table (holding [tool.ttanalyze.diff]), not int 5"
    r = cli("diff", path("mlp_o0"), path("mlp_o2"), "--config", cfg)
    assert r.exit_code == 2 and r.stderr.startswith(f"{cfg}:2:1: error: 'tool.ttanalyze' must be a table")


# ---------------------------------------------------------------------------
# ops whose cost became unknown: totals over the same ops, and a regression unless allowed
# ---------------------------------------------------------------------------


def _uncost(s: D.Side, name: str) -> tuple[D.Side, int]:
    """``s`` with the first op called ``name`` unknown to the cost model (as a pass the model cannot follow)."""
    metrics = copy.deepcopy(s.metrics)
    op = next(o for o in s.analysis.program.ops if o.name == name)
    metrics[op.index].update(dram_bytes=None, ns=None)
    return dataclasses.replace(s, metrics=metrics), op.index


def test_newly_uncosted_op_is_a_regression():
    before = side("transformer_ffn_o2")
    after, index = _uncost(before, "ttnn.linear")
    line = before.analysis.program.ops[index].pos.line
    d = D.diff(before, after, D.Thresholds())
    # the op is left out of both sides' totals: they stay equal instead of dropping by the linear's time
    assert d.totals_before["latency_ns"] == d.totals_after["latency_ns"]
    assert d.totals_before["dram_bytes"] == d.totals_after["dram_bytes"]
    full = D.totals(before)["latency_ns"]
    assert d.totals_before["latency_ns"] == pytest.approx(full - before.metrics[index]["ns"])
    assert (d.totals_before["uncosted_ops"], d.totals_after["uncosted_ops"]) == (0, 1)
    [r] = d.regressions
    assert (r.what, r.option, r.after) == ("uncosted op", "allow-uncosted", line)
    assert r.message.startswith(f"op ttnn.linear at line {line} is no longer costed")
    assert [c.match.after.index for c in d.uncosted] == [index]
    doc = D.diff_record(d)
    assert doc["totals"]["newly_uncosted"][0]["after"]["line"] == line
    assert doc["totals"]["latency_ns"]["delta"] == 0
    # allowed: reported, not a regression; and not checked when neither latency nor DRAM is
    assert not D.diff(before, after, D.Thresholds(allow_uncosted=True)).regressions
    assert not D.diff(before, after, D.Thresholds(latency=None, dram=None)).regressions
    # the other way (an op the cost model now knows) is no regression either: it counts on neither side
    back = D.diff(after, before, D.Thresholds(latency=0, dram=0))
    assert not back.regressions and not back.uncosted


def test_added_uncosted_op_is_a_regression(cli, tmp_path, monkeypatch):
    # constpad -> edgepad adds a ttnn.concat the cost model does not know: the after totals cannot vouch for it
    d = pair("mochi_small_constpad_o0", "mochi_small_edgepad_o0")
    added = [c for c in d.uncosted if c.match.before is None]
    assert added and {c.match.after.name for c in added} == {"ttnn.concat"}
    assert all(r.what == "uncosted op" and "(added) is not costed" in r.message
               for r in d.regressions if r.option == "allow-uncosted")
    # the matched conv3d and mean, unknown on both sides, are in neither total nor a regression
    assert not [c for c in d.uncosted if c.match.before is not None]
    monkeypatch.chdir(tmp_path)
    args = ("diff", path("mochi_small_constpad_o0"), path("mochi_small_edgepad_o0"))
    r = cli(*args)
    assert r.exit_code == 1 and "ttnn.concat at line" in r.stdout and "(added) is not costed" in r.stdout
    (tmp_path / "pyproject.toml").write_text("[tool.ttanalyze.diff]\nallow-uncosted = true\n")
    r = cli(*args)
    assert "(added) is not costed" not in r.stdout.split("thresholds:")[1]
    assert "allow-uncosted true" in r.stdout
    # the command line wins over pyproject.toml
    r = cli(*args, "--no-allow-uncosted")
    assert "allow-uncosted false (from command line" in r.stdout and r.exit_code == 1
