"""``ttanalyze limits``: the largest size of a dimension before an op overflows L1 (ttanalyze.limits).

The boundaries are checked three ways: against the analyzer's own verdicts on the real fixture pairs that
sit either side of the CB limit (compiled by tt-mlir, run or refused on the mock P150), against the CB
formula of the binding op worked out by hand (comments), and by re-analyzing the instantiated program.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.errors import InputError
from ttanalyze.ir.parse import parse_file
from ttanalyze import limits as limits_mod
from ttanalyze.limits import _Oracle, derive, find_limit, instantiate, resolve_dim, retype
from ttanalyze.rules import run

from .conftest import REAL, analyze_path, findings_of

FIX = REAL[0].parent.parent
ARGMAX_FITS = FIX / "cb_fits_argmax_7104x4096_o0" / "ttnn.mlir"
ARGMAX_OVER = FIX / "cb_overflow_argmax_7136x4096_o0" / "ttnn.mlir"
ARGMAX64_FITS = FIX / "cb_fits_argmax_87216x64_o0" / "ttnn.mlir"
ARGMAX64_OVER = FIX / "cb_overflow_argmax_87224x64_o0" / "ttnn.mlir"
TOPK_FITS = FIX / "cb_fits_topk_k3552_o0" / "ttnn.mlir"
TOPK_OVER = FIX / "cb_overflow_topk_k3584_o0" / "ttnn.mlir"
MLP_O0 = FIX / "mlp_o0" / "ttnn.mlir"
MLP_O1 = FIX / "mlp_o1" / "ttnn.mlir"
FFN_O0 = FIX / "transformer_ffn_o0" / "ttnn.mlir"
FFN_O1 = FIX / "transformer_ffn_o1" / "ttnn.mlir"
CONV = FIX / "conv2d_block_o0" / "ttnn.mlir"


def limits_json(cli, *args):
    res = cli("limits", *args, "--format", "json")
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


# ---------------------------------------------------------------------------
# The argmax pair [7104 | 7136] x 4096 bf16, row-major in DRAM: the rows (dim 0) bind
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", [ARGMAX_FITS, ARGMAX_OVER])
def test_argmax_rows_limit(cli, path):
    # ArgMaxMultiCoreProgramFactory (ttanalyze/ops/argmax_topk.py, argmax_multi_core_program): W = 4096 bf16,
    # DRAM alignment 64 -> 32-element blocks, 128 blocks; sqrt cap ceil(sqrt(4096 * 2 / 2) / 2) = 32 cores
    # (ranges of 22 + 10), 4 blocks = 128 elements = 256 B of src per core; rows R = the tensor's dim 0:
    #   dst = align32(4 R), red_idxs = 32 dst, red_vals = 32 align32(2 R); the source DFB is doubled when
    #   align64(512) + align64(dst) + red_idxs + red_vals <= 1,572,864 - 177,280 = 1,395,584.
    # R = 7112: dst 28,448, idxs 910,336, vals 32 x 14,240 = 455,680; doubled need 512 + 28,480 + 910,336 +
    #   455,680 = 1,395,008 <= 1,395,584 -> copies 2; region 177,280 + 512 -> 177,792 + 28,448 -> 206,240
    #   (64-aligned 206,272) + 910,336 -> 1,116,608 + 455,680 = 1,572,288 <= 1,572,864: fits.
    # R = 7113: dst align32(28,452) = 28,480, idxs 911,360, vals 455,680; need 1,396,032 > 1,395,584 -> one copy;
    #   region 177,280 + 256 -> 177,536 + 28,480 -> 206,016 + 911,360 -> 1,117,376 + 455,680 = 1,573,056
    #   > 1,572,864 by 192 B: tt-metal refuses the program.
    d = limits_json(cli, path, "--dim", "batch")
    assert d["dim"]["arg_name"] == "x" and d["dim"]["index"] == 0
    assert (d["largest"], d["first_failing"]) == (7112, 7113)
    assert 7104 <= d["largest"] < d["first_failing"] <= 7136
    b = d["binding"]
    assert (b["rule"], b["op"], b["line"], b["col"]) == ("TTA010", "ttnn.argmax", 13, 14)
    assert (b["bytes_used"], b["bytes_budget"]) == (1_573_056, 1_572_864)
    assert d["current_fits"] is (path == ARGMAX_FITS)
    assert d["analyzer_calls"] <= 20
    # the analyzer's own verdicts on the two compiled programs agree
    assert not findings_of(analyze_path(ARGMAX_FITS), "TTA010")
    assert findings_of(analyze_path(ARGMAX_OVER), "TTA010")


def test_argmax_rows_limit_sequence_alias_is_the_same_dim(cli):
    # rank 2: sequence (dim -2) is dim 0 too
    d = limits_json(cli, ARGMAX_FITS, "--dim", "sequence", "--max", "20000")
    assert (d["largest"], d["first_failing"]) == (7112, 7113)


def test_argmax_87216_sits_on_the_limit():
    # [R, 64] bf16: 2 blocks -> 2 cores; R = 87,217: dst align32(348,868) = 348,896, idxs 697,792,
    # vals 2 x align32(174,434) = 348,928: doubled need 128 + 348,896 + 697,792 + 348,928 = 1,395,744 > 1,395,584,
    # one copy: 177,280 + 64 -> 177,344 + 348,896 -> 526,240 (64-aligned 526,272) + 697,792 -> 1,224,064
    # + 348,928 = 1,572,992 > 1,572,864.  R = 87,216 needs exactly 1,395,584 doubled: ends at l1_size, fits.
    for path in (ARGMAX64_FITS, ARGMAX64_OVER):
        r = find_limit(parse_file(path), "x:0", max_value=200_000)
        assert (r.largest, r.first_failing) == (87_216, 87_217)
        assert (r.binding.used, r.binding.budget) == (1_572_992, 1_572_864)
        assert r.current_fits is (path == ARGMAX64_FITS)


def test_argmax_width_binds_at_once():
    # widening the 64-element rows: 65 elements -> 3 blocks, 3 cores, the sums grow past l1_size
    r = find_limit(parse_file(ARGMAX64_FITS), "width", max_value=4096)
    assert (r.largest, r.first_failing) == (64, 65)
    assert r.binding.op_name == "ttnn.argmax" and r.binding.rule == "TTA010"


# ---------------------------------------------------------------------------
# topk: k bounds the width from below; the k3584 program overflows at every legal width
# ---------------------------------------------------------------------------


def test_topk_width(cli):
    d = limits_json(cli, TOPK_FITS, "--dim", "width", "--max", "100000")
    assert d["lower_bound"] == 3552  # k <= width
    assert d["current_fits"] and d["largest"] >= 4096
    assert d["binding"]["op"] == "ttnn.topk" and d["binding"]["line"] == 16
    over = limits_json(cli, TOPK_OVER, "--dim", "width", "--max", "100000")
    assert over["largest"] is None and over["first_failing"] == 3584 and not over["current_fits"]
    # TopKSingleCoreProgramFactory, k = 3584 -> Kt 112: 2 x 4,096 + 2 x 8,192 + 2 x 458,752 + 2 x 229,376
    # = 1,400,832 B of CBs + base 177,280 = 1,578,112 > 1,572,864, whatever the width
    assert (over["binding"]["rule"], over["binding"]["bytes_used"]) == ("TTA010", 1_578_112)


# ---------------------------------------------------------------------------
# Seed 001 (Wormhole): the late-2025 untilize sizes its block to the row, ttnn 0.81.1 caps it
# ---------------------------------------------------------------------------


def test_seed_untilize_sequence_depends_on_tt_metal(cli):
    seed = FIX.parent / "seeds" / "mochi_replicate_pad_untilize_wh.mlir"
    d = limits_json(cli, seed, "--dim", "sequence", "--tt-metal", "2025-12", "--max", "4096")
    assert d["dim"]["index"] == 3 and d["dim"]["current"] == 60 and not d["current_fits"]
    assert (d["largest"], d["first_failing"]) == (8, 9)
    b = d["binding"]
    assert (b["rule"], b["op"], b["line"], b["col"], b["loc"]) == ("TTA010", "ttnn.to_layout", 20, 10,
                                                                   "aten__index_workaround")
    assert b["bytes_used"] > b["bytes_budget"] == 1_499_136
    assert "UntilizeWithUnpaddingMultiCoreBlockInterleavedProgramFactory" in b["what"]
    assert limits_json(cli, seed, "--dim", "sequence", "--max", "512")["first_failing"] is None


# ---------------------------------------------------------------------------
# mlp / transformer_ffn: DRAM-interleaved programs whose CBs do not grow with the rows
# ---------------------------------------------------------------------------


def test_mlp_batch_nothing_overflows(cli):
    res = cli("limits", MLP_O1, "--dim", "batch")
    assert res.exit_code == 0, res.output
    assert "nothing overflows L1 up to --max 1,048,576" in res.output
    d = limits_json(cli, MLP_O1, "--dim", "%arg0:0")
    assert d["first_failing"] is None and d["largest"] == 2**20 and d["binding"] is None


def test_mlp_fixed_matmul_config_is_refused_then_dropped(cli):
    res = cli("limits", MLP_O0, "--dim", "batch")
    assert res.exit_code == 2
    assert res.output.startswith(f"{MLP_O0}:28:14: error: ttnn.linear: its matmul_program_config was planned")
    assert "Traceback" not in res.output
    d = limits_json(cli, MLP_O0, "--dim", "batch", "--auto-matmul-config", "--max", "4096")
    assert d["first_failing"] is None


def test_transformer_tied_width(cli):
    spec = "x:-1,g:0,beta:0,w1:0,w2:1,b2:0"
    d = limits_json(cli, FFN_O1, "--dim", spec, "--max", "65536")
    assert [t["arg_name"] for t in d["dim"]["tied"]] == ["g", "beta", "w1", "w2", "b2"]
    assert d["current_fits"] and d["first_failing"] is None
    # the width alone stops at the first op that needs the weights to follow
    res = cli("limits", FFN_O1, "--dim", "width")
    assert res.exit_code == 2 and ":66:15: error: ttnn.multiply: at width = 769" in res.output


def test_transformer_sequence_instantiated():
    program = parse_file(FFN_O1)
    der = derive(program, resolve_dim(program, "sequence"))
    assert der.ref.current == 128 and der.modulus == 1
    q = instantiate(program, der, 256)
    reshapes = [o for o in q.ops if o.name == "ttnn.reshape" and o.results[0].type.shape[0] == 256]
    assert reshapes and reshapes[0].attrs["shape"] == [256, 768]
    assert reshapes[0].raw_attrs["shape"] == "[256 : i32, 768 : i32]"
    x = q.entry.args[0]
    assert x.type.shape == (1, 256, 768)
    lay = x.type.layout
    # DRAM interleaved: the memref is the whole collapsed 2D shape (1 * 256, 768), in tiles if tiled
    assert lay.memref_shape == ((8, 24) if lay.is_tiled else (256, 768))
    assert not [f for f in run(analyze(q)) if f.severity == "error"]


# ---------------------------------------------------------------------------
# instantiation at the current size is the program itself
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("path, spec", [(ARGMAX_OVER, "batch"), (TOPK_FITS, "width"), (MLP_O1, "batch"),
                                        (FFN_O1, "sequence"), (CONV, "batch")])
def test_instantiate_at_current_size_changes_nothing(path, spec):
    program = parse_file(path)
    der = derive(program, resolve_dim(program, spec))
    a0, a1 = analyze(program), analyze(instantiate(program, der, der.ref.current))
    assert [(f.rule, f.pos, f.message) for f in run(a0)] == [(f.rule, f.pos, f.message) for f in run(a1)]
    for v in der.shapes:
        assert retype(v.type, v.type.shape).layout.memref_shape == v.type.layout.memref_shape


def test_conv_batch_rewrites_batch_size():
    program = parse_file(CONV)
    der = derive(program, resolve_dim(program, "batch"))
    q = instantiate(program, der, 3)
    conv = next(o for o in q.ops if o.name == "ttnn.conv2d")
    pool = next(o for o in q.ops if o.name == "ttnn.max_pool2d")
    assert conv.attrs["batch_size"] == 3 and pool.attrs["batch_size"] == 3
    assert conv.operands[0].type.shape == (1, 1, 3 * 1024, 16) and pool.results[0].type.shape == (1, 1, 3 * 256, 32)
    assert conv.raw_attrs["batch_size"] == "3 : i32"
    # the last reshape [1, 1, 256 N, 32] -> [N, 16, 16, 32]: the size-1 dim that was the batch takes it back
    reshape = [o for o in q.ops if o.name == "ttnn.reshape"][-1]
    assert reshape.attrs["shape"] == [3, 16, 16, 32] and q.entry.returns[0].type.shape == (3, 16, 16, 32)
    # tile layout of [3, 16, 16, 32]: padded [3, 16, 32, 32], collapsed 3 * 16 * 32 = 1,536 rows -> memref
    # 48 x 1 tiles (DRAM interleaved: the whole 2D shape); map strides 16 * 32 = 512 and 32
    lay = reshape.results[0].type.layout
    assert lay.memref_shape == (48, 1) and lay.linear.text == "(d0, d1, d2, d3) -> (d0 * 512 + d1 * 32 + d2, d3)"


# ---------------------------------------------------------------------------
# input errors: one line, file:line:col, exit 2
# ---------------------------------------------------------------------------


def test_unknown_dim_name(cli):
    res = cli("limits", MLP_O1, "--dim", "depth")
    assert res.exit_code == 2 and "Traceback" not in res.output
    line = res.output.strip()
    assert line.startswith(f"{MLP_O1}:") and "error: unknown dimension 'depth'" in line
    assert "batch (dim 0), sequence (dim -2) or width (dim -1)" in line and "%arg0 (x) rank 2" in line


@pytest.mark.parametrize("spec, text", [
    ("%arg0:7", "dim 7 is out of range for %arg0 of rank 2 (valid: -2..1)"),
    ("nope:0", "unknown argument 'nope'"),
    ("x:-1,w1:1", "tied dims differ in size"),
])
def test_bad_dim_specs(cli, spec, text):
    res = cli("limits", MLP_O1, "--dim", spec)
    assert res.exit_code == 2 and text in res.output and "Traceback" not in res.output


def test_op_that_cannot_scale(cli):
    # conv2d_block's last reshape [1, 1, 256 N, 32] -> [1, 16, 16, 32] along W (dim -2 of x): which of 16, 16
    # would take the factor is not known; the command stops there rather than guess
    res = cli("limits", CONV, "--dim", "sequence")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.output.startswith(f"{CONV}:63:15: error: ttnn.reshape: reshape 1x1x256x32 -> 1x16x16x32: cannot tell")
    res = cli("limits", CONV, "--dim", "width")
    assert res.exit_code == 2 and res.output.startswith(f"{CONV}:53:15: error: ttnn.conv2d: its channels")


def test_sharded_program_is_refused():
    program = parse_file(FIX / "mlp_o2" / "ttnn.mlir")
    with pytest.raises(InputError, match="sharded: its shard spec would have to be re-planned"):
        derive(program, resolve_dim(program, "batch"))


# ---------------------------------------------------------------------------
# size caps: a program whose tensors cannot fit the device is a failing size, not something to analyze
# ---------------------------------------------------------------------------


def test_dram_capacity_caps_the_search(cli):
    # mlp_o1 (Blackhole P150 system_desc): nothing overflows L1 with the batch.  The largest size that runs is
    # the least of the L1 and DRAM bounds: at B + 1 = 44,553,409 the live DRAM tensors at the linear (the
    # allocator replay, 8 banks of 4,277,141,376 B) need 4,277,143,552 B per bank, and tt-metal refuses the
    # allocation (TTA005 error); the whole-device cap (66,788,769 for the largest tensor alone) comes later.
    d = limits_json(cli, MLP_O1, "--dim", "batch", "--max", str(2**30))
    assert (d["largest"], d["first_failing"]) == (44_553_408, 44_553_409)
    b = d["binding"]
    assert (b["rule"], b["op"], b["line"]) == ("TTA005", "ttnn.linear", 28)
    assert (b["bytes_used"], b["bytes_budget"]) == (4_277_143_552, 4_277_141_376)
    res = cli("limits", MLP_O1, "--dim", "batch", "--max", str(2**30))
    assert "binding op ttnn.linear at" in res.output and "of live DRAM tensors per bank" in res.output


def test_model_budget_caps_elements():
    program = parse_file(MLP_O1)
    der = derive(program, resolve_dim(program, "batch"))
    oracle = _Oracle(program, der, None, None, limits_mod.DEFAULT_TT_METAL)
    assert oracle.size_cap(2**20) is None
    cap = oracle.size_cap(2**27)  # [2^27, 256] = 2^35 elements
    assert cap.rule == "model-budget" and "34,359,738,368 elements" in cap.what
    p = oracle(2**27)
    assert not p.fits and p.binding.rule == "model-budget" and oracle.calls == 0


def test_seed_batch_is_capped_by_dram_within_4_gb():
    # The search used to grow the batch to 4,096 and the reshape's page-mapping model ran out of memory (killed at
    # 24 GB).  The tiled %2 [4, 4,884,480 v] bf16 takes 1 x 152,640 x v tiles x 2,048 B = 312,606,720 B per batch;
    # the Wormhole DRAM is 12 x (1,073,119,552 - 1,920,032) = 12,854,394,240 B: 41 batches fit, 42 do not.
    seed = FIX.parent / "seeds" / "mochi_replicate_pad_untilize_wh.mlir"
    code = ("import json, resource; resource.setrlimit(resource.RLIMIT_AS, (4_000_000_000, 4_000_000_000))\n"
            "from ttanalyze.ir.parse import parse_file\nfrom ttanalyze.limits import find_limit\n"
            f"r = find_limit(parse_file({str(seed)!r}), 'batch')\nprint(json.dumps(r.record()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    d = json.loads(out.stdout)
    # The live DRAM tensors at the reshape (allocator replay, 12 banks of 1,071,821,792 B) bind first: 31
    # batches run, at 32 tt-metal refuses the reshape's output (TTA005); 42 is the whole-device cap.
    assert (d["largest"], d["first_failing"]) == (31, 32)
    assert d["binding"]["rule"] == "TTA005" and d["binding"]["op"] == "ttnn.reshape"
    assert d["binding"]["bytes_budget"] == 1_071_821_792


def test_slow_probe_stops_the_growth(monkeypatch):
    monkeypatch.setattr(limits_mod, "PROBE_SECONDS", -1.0)  # every analyzer call is "slow"
    r = find_limit(parse_file(MLP_O1), "batch")
    assert (r.largest, r.first_failing, r.searched_max) == (32, None, 32)
    assert [p.v for p in r.probes] == [32]
    assert r.notes[0].startswith("search stopped at v = 32: the analyzer call took")
    assert "nothing overflows L1 up to 32 (the search stopped there" in r.text()
    assert r.record()["searched_max"] == 32
