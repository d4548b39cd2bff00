"""Fixes of replicate padding lowered through a gather (seed 001): ``replicate-pad/slice-concat`` and
``replicate-pad/constant-pad`` (:mod:`ttanalyze.fixes.replicate_pad`).

Fixture ``fixtures/seeds/mochi_replicate_pad_gather_wh.mlir``: the whole pattern of the seed,
``F.pad(x, (0, 0, 0, 0, 2, 0), mode="replicate")`` of ``[1, 768, 4, 60, 106]`` bf16 lowered as
``to_layout(tile) -> permute -> reshape [4, 4884480] -> to_layout(row_major) -> embedding(indices =
clamp(arange(-2, 4), 0, 3)) -> reshape -> permute``.  :func:`gather_pad_module` below writes it (at the
seed's shapes it reproduces the fixture's IR byte for byte); the interpreter checks run on the same
module at ``[1, 64, 4, 16, 16]`` (the full shapes take about 20 s in numpy).

Numbers (Wormhole n150, ``--tt-metal 2025-12``): the untilize of the ``[4, 4884480]`` tile tensor runs
``UntilizeWithUnpaddingMultiCoreBlockInterleavedProgramFactory`` on 63 cores, 62 of them with c_0 and
c_16 of 2,423 bf16 tiles: 2 x 2,423 x 2,048 = 9,924,608 B of CBs per core; core (7,6) (2 x 2,414 tiles)
grows to 102,656 + 9,887,744 = 9,990,400 B > 1,499,136 B (TTA010).  After slice-concat the largest CB
region of the program is the row-major concat's (7,168 B); after constant-pad, ttnn.pad's (35,840 B).
"""

from __future__ import annotations

import numpy as np
import pytest

from ttanalyze.analysis import analyze
from ttanalyze.fixes import catalog
from ttanalyze.fixes.model import apply_rewrites
from ttanalyze.fixes import replicate_pad as rp  # noqa: F401  (registers the builder)
from ttanalyze.interp import random_inputs, run
from ttanalyze.ir.emit import TensorDesc, encoding_text
from ttanalyze.ir.parse import parse_text
from ttanalyze.rules import run as rules_run

from .conftest import FIXTURES

FIXTURE = FIXTURES / "seeds" / "mochi_replicate_pad_gather_wh.mlir"
SEED_SHAPE = (1, 768, 4, 60, 106)
SMALL_SHAPE = (1, 64, 4, 16, 16)


def _system_desc() -> str:
    text = (FIXTURES / "seeds" / "mochi_replicate_pad_untilize_wh.mlir").read_text()
    return next(line for line in text.splitlines() if line.startswith("#system_desc"))


def gather_pad_module(shape=SEED_SHAPE, start=-2, end=4, clamp_max=3, name="mochi_replicate_pad_gather",
                      out_layout="row_major") -> str:
    """The TTNN IR of a replicate pad of dim 2 of ``shape`` lowered through ``ttnn.embedding``.

    The indices are ``clamp(arange(start, end), 0, clamp_max)`` (bf16 tile, then typecast to u32 and
    untilized, as embedding reads them); the weight is the ``[T, N*C*H*W]`` flattening of the tensor;
    the embedding and the reshape and permute back give ``out_layout`` tensors.  Each value is
    deallocated after its last use, as tt-mlir does.
    """
    n, c, t, h, w = shape
    tp = end - start
    flat = n * c * h * w
    aliases: list[str] = []

    def ty(alias: str, s, layout="tile", dtype="bf16") -> str:
        d = TensorDesc(tuple(s), dtype, layout)
        enc = encoding_text(d).replace("#ttnn.buffer_type<dram>>", "#dram>")
        aliases.append(f"#{alias} = {enc}")
        return d.type_text("#" + alias)

    x_rm = ty("layout_rm_5d", shape, "row_major")
    x_t = ty("layout_tile_5d", shape)
    p_t = ty("layout_tile_perm", (t, n, c, h, w))
    w_t = ty("layout_wide_tile", (t, flat))
    w_rm = ty("layout_wide_rm", (t, flat), "row_major")
    i_bf = ty("layout_idx_bf16", (tp,))
    i_u32 = ty("layout_idx_u32", (tp,), dtype="u32")
    i_rm = ty("layout_idx_u32_rm", (tp,), "row_major", "u32")
    i_2d = ty("layout_idx_2d", (1, tp), "row_major", "u32")
    g_rm = ty("layout_gathered", (1, tp, flat), out_layout)
    b_rm = ty("layout_gathered_5d", (tp, n, c, h, w), out_layout)
    o_rm = ty("layout_out_5d", (n, c, tp, h, w), out_layout)

    def free(v: str, t_: str) -> str:
        return f'    "ttnn.deallocate"({v}) <{{force = false}}> : ({t_}) -> ()'

    body = [
        '    %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> '
        ': () -> !ttnn.device loc("aten__index_device")',
        f'    %1 = "ttnn.to_layout"(%arg0) <{{layout = #ttnn.layout<tile>}}> : ({x_rm}) -> {x_t} '
        'loc("aten__index_toLayout")',
        free("%arg0", x_rm),
        f'    %2 = "ttnn.permute"(%1) <{{permutation = array<i64: 2, 0, 1, 3, 4>}}> : ({x_t}) -> {p_t} '
        'loc("aten__index_permuteInput")',
        free("%1", x_t),
        f'    %3 = "ttnn.reshape"(%2) <{{shape = [{t} : i32, {flat} : i32]}}> : ({p_t}) -> {w_t} '
        'loc("aten__index_reshapeInput")',
        free("%2", p_t),
        f'    %4 = "ttnn.to_layout"(%3) <{{layout = #ttnn.layout<row_major>}}> : ({w_t}) -> {w_rm} '
        'loc("aten__index_workaround")',
        free("%3", w_t),
        f'    %5 = "ttnn.arange"(%0) <{{dtype = #ttcore.supportedDataTypes<bf16>, end = {end} : i64, '
        'layout = #ttnn.layout<tile>, memory_config = #ttnn.memory_config<#dram, <interleaved>>, '
        f'start = {start} : i64, step = 1 : i64}}> : (!ttnn.device) -> {i_bf} loc("aten__index_indices")',
        f'    %6 = "ttnn.clamp_scalar"(%5) <{{max = {float(clamp_max):.6e} : f32, min = 0.000000e+00 : f32}}> '
        f': ({i_bf}) -> {i_bf} loc("aten__index_clampIndices")',
        free("%5", i_bf),
        f'    %7 = "ttnn.typecast"(%6) <{{dtype = #ttcore.supportedDataTypes<u32>}}> : ({i_bf}) -> {i_u32} '
        'loc("aten__index_indicesTypecast")',
        free("%6", i_bf),
        f'    %8 = "ttnn.to_layout"(%7) <{{layout = #ttnn.layout<row_major>}}> : ({i_u32}) -> {i_rm} '
        'loc("aten__index_indicesToLayout")',
        free("%7", i_u32),
        f'    %9 = "ttnn.reshape"(%8) <{{shape = [1 : i32, {tp} : i32]}}> : ({i_rm}) -> {i_2d} '
        'loc("aten__index_reshapeIndices")',
        free("%8", i_rm),
        f'    %10 = "ttnn.embedding"(%9, %4) : ({i_2d}, {w_rm}) -> {g_rm} loc("aten__index_gather")',
        free("%9", i_2d),
        free("%4", w_rm),
        f'    %11 = "ttnn.reshape"(%10) <{{shape = [{tp} : i32, {n} : i32, {c} : i32, {h} : i32, {w} : i32]}}> '
        f': ({g_rm}) -> {b_rm} loc("aten__index_reshapeOutput")',
        free("%10", g_rm),
        f'    %12 = "ttnn.permute"(%11) <{{permutation = array<i64: 1, 2, 0, 3, 4>}}> : ({b_rm}) -> {o_rm} '
        'loc("aten__index_permuteOutput")',
        free("%11", b_rm),
        f"    return %12 : {o_rm}",
    ]
    return "\n".join([
        "#dram = #ttnn.buffer_type<dram>",
        _system_desc(),
        *aliases,
        f"module @{name} attributes {{ttcore.system_desc = #system_desc}} {{",
        f"  func.func @main(%arg0: {x_rm}) -> {o_rm} {{",
        *body,
        "  }",
        "}",
        "",
    ])


def _ir(text: str) -> str:
    """``text`` without its leading comment lines."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("//")) + "\n"


def analysis(text: str, tt_metal: str = "2025-12", path: str = "pad.mlir"):
    a = analyze(parse_text(text, path), None, None, tt_metal)
    return a, rules_run(a)


def one(findings, rule: str):
    [f] = [f for f in findings if f.rule == rule]
    return f


@pytest.fixture(scope="module")
def seed():
    """The fixture analyzed with the late-2025 tt-metal, its TTA010 finding and that finding's ranked fixes."""
    text = FIXTURE.read_text()
    a, findings = analysis(text, path=str(FIXTURE))
    f = one(findings, "TTA010")
    return text, a, findings, f, {fx.id: fx for fx in catalog.suggest(f, text, a, findings)}


@pytest.fixture(scope="module")
def small():
    text = gather_pad_module(SMALL_SHAPE, name="mochi_replicate_pad_gather_small")
    a, findings = analysis(text)
    return text, a, findings


# ---------------------------------------------------------------------------
# The fixture
# ---------------------------------------------------------------------------


def test_fixture_is_the_generated_module_at_the_seed_shapes():
    assert _ir(FIXTURE.read_text()) == gather_pad_module()


def test_fixture_reproduces_the_seed_failure_with_late_2025_tt_metal(seed):
    _, a, findings, f, _ = seed
    op = a.program.ops[f.op_index]
    assert (op.name, op.loc_name) == ("ttnn.to_layout", "aten__index_workaround")
    assert "UntilizeWithUnpaddingMultiCoreBlockInterleavedProgramFactory" in f.message
    assert "[(7,6)-(7,6)] grow to 9,990,400 B" in f.message and "1,499,136 B" in f.message
    assert "holds 9,924,608 B of CBs" in f.message
    # the reshape back from [1, 6, 4884480] row major needs 19.5 MB of L1 staging (refused with current
    # tt-metal too; the jax 'seed' run in the seed-001 notes failed the same way)
    refused = one(findings, "TTA013")
    assert a.program.ops[refused.op_index].loc_name == "aten__index_reshapeOutput"
    assert {x.rule for x in findings if x.severity == "error"} == {"TTA010", "TTA013"}


def test_current_tt_metal_untilize_fits_but_the_reshape_back_is_refused():
    a, findings = analysis(FIXTURE.read_text(), tt_metal="0.81.1")
    assert not [f for f in findings if f.rule == "TTA010"]
    assert [f.rule for f in findings if f.severity == "error"] == ["TTA013"]


def test_interpreter_runs_the_pattern_as_a_replicate_pad(small):
    text, a, _ = small
    [x] = random_inputs(a.program.entry, seed=1)
    [y] = run(a.program, [x])
    assert np.array_equal(y, np.concatenate([x[:, :, :1], x[:, :, :1], x], axis=2))


# ---------------------------------------------------------------------------
# Recognising the pattern
# ---------------------------------------------------------------------------


def test_pattern_is_found_with_constant_indices(seed):
    _, a, _, _, _ = seed
    [pat] = rp.patterns(a)
    assert (pat.lo, pat.hi, pat.axis, pat.perm) == (2, 0, 2, (2, 0, 1, 3, 4))
    assert pat.indices.tolist() == [0, 0, 0, 1, 2, 3]
    assert pat.source.name == "%arg0" and pat.target.name == "%12"
    assert pat.padded_elements == 2 * 768 * 60 * 106 == 9_768_960
    # every op but get_device goes (the index subgraph, the flattening, the gather and the way back)
    assert [o.name for o in rp.removable(pat)] == [o.name for o in a.program.ops
                                                    if o.name not in ("ttnn.get_device", "ttnn.deallocate")]


@pytest.mark.parametrize(("idx", "rows", "expected"), [
    ([0, 0, 0, 1, 2, 3], 4, (2, 0)),
    ([0, 0, 1, 2, 3, 3], 4, (1, 1)),
    ([0, 1, 2, 3, 3, 3, 3], 4, (0, 3)),
    ([0, 1, 2, 3], 4, None),          # no padding
    ([0, 0, 0, 1, 2, 2], 4, None),    # drops the last row
    ([1, 0, 0, 1, 2, 3], 4, None),    # reflect, not replicate
])
def test_clamped_ramp(idx, rows, expected):
    assert rp.clamped_ramp(np.array(idx), rows) == expected


def test_no_fix_when_the_indices_are_not_replicate_padding():
    a, findings = analysis(gather_pad_module(SMALL_SHAPE, clamp_max=2))
    assert rp.patterns(a) == []


def test_no_fix_when_the_indices_are_an_input():
    text = gather_pad_module(SMALL_SHAPE)
    # the indices become a function argument: not a compile-time constant
    i_2d = "tensor<1x6xui32, #layout_idx_2d>"
    text = text.replace("func.func @main(%arg0: ", f"func.func @main(%idx: {i_2d}, %arg0: ")
    text = text.replace('"ttnn.embedding"(%9, %4)', '"ttnn.embedding"(%idx, %4)')
    a, _ = analysis(text)
    assert rp.patterns(a) == []


# ---------------------------------------------------------------------------
# The fixes of the seed's TTA010
# ---------------------------------------------------------------------------


def test_tta010_gets_both_fixes_and_slice_concat_ranks_first(seed):
    _, _, _, _, fixes = seed
    sc, cp = fixes["replicate-pad/slice-concat"], fixes["replicate-pad/constant-pad"]
    assert sc.rank == 1 and sc.applicable and sc.numerics == "exact"
    assert sc.effect.finding_gone and sc.effect.new_errors == []
    assert cp.applicable and cp.rank > sc.rank
    assert cp.numerics == ("zero instead of the replicated edge: 9,768,960 elements (2 slice(s) of dim 2) differ")
    # the layout fix of the same finding leaves the reshape back refused
    assert not fixes["untilize/before-reshape"].applicable
    for fx in (sc, cp):
        assert "seed 001" in fx.rationale.lower() and "9,990,400 B" in fx.rationale and "9,924,608 B" in fx.rationale


def test_fix_effects_cb_and_latency(seed):
    _, _, _, _, fixes = seed
    sc, cp = fixes["replicate-pad/slice-concat"], fixes["replicate-pad/constant-pad"]
    before = sc.effect.before
    assert before["cb_per_core"] == 9_924_608 == 2 * 2_423 * 2_048
    assert before["latency_ns"] is None  # the embedding (9.77 MB rows) and the refused reshape are not costed
    # slice-concat: row-major slices and a row-major concat along dim 2
    assert sc.effect.after["cb_per_core"] == 7_168
    assert sc.effect.after["padded_tiles"] == 0
    assert sc.effect.after["latency_ns"] == pytest.approx(2.067e6, rel=0.01)
    assert sc.effect.after["dram_bytes"] == 136_765_440
    # constant-pad: one row-major ttnn.pad
    assert cp.effect.after["cb_per_core"] == 35_840
    assert cp.effect.after["latency_ns"] == pytest.approx(2.134e6, rel=0.01)
    assert cp.effect.after["dram_bytes"] == 97_689_600
    # what the costed ops of the removed chain take (a lower bound: the embedding and the reshape back
    # have no cost): the wide reshape and its untilize alone are over 90 ms
    assert sc.details["removed_latency_ns_lower_bound"] > 90e6
    assert sc.details["removed_unknown_cost"] == ["ttnn.embedding", "ttnn.reshape"]


def test_fix_file_applies_slice_concat_and_check_is_clean(seed):
    text, a, findings, _, _ = seed
    res = catalog.fix_file(text, a, findings, rule="TTA010")
    assert [ap.fix.id for ap in res.applied] == ["replicate-pad/slice-concat"]
    b, after = analysis(res.text)
    assert [f for f in after if f.severity == "error"] == []
    names = [o.name for o in b.program.ops if o.name != "ttnn.deallocate"]
    assert names == ["ttnn.get_device", "ttnn.slice_static", "ttnn.concat"]
    module = res.text.split("module @")[1]
    assert "ttnn.embedding" not in module and "4884480" not in module
    # also clean with current tt-metal
    _, now = analysis(res.text, tt_metal="0.81.1")
    assert [f for f in now if f.severity == "error"] == []


def test_the_refused_reshape_back_gets_the_same_fix():
    text = FIXTURE.read_text()
    a, findings = analysis(text, tt_metal="0.81.1")
    f = one(findings, "TTA013")
    fixes = catalog.suggest(f, text, a, findings)
    assert fixes[0].id == "replicate-pad/slice-concat" and fixes[0].applicable


# ---------------------------------------------------------------------------
# Numerics (interpreter, small shapes)
# ---------------------------------------------------------------------------


def _fixed_texts(text, a, findings):
    """The program rewritten by each replicate-pad fix (of the wide reshape's TTA002: at small shapes the
    untilize fits)."""
    [f] = [f for f in findings
           if f.rule == "TTA002" and a.program.ops[f.op_index].loc_name == "aten__index_reshapeInput"]
    return {fx.id: apply_rewrites(text, a, [fx.rewrite]) for fx in catalog.suggest(f, text, a, findings)
            if fx.id.startswith("replicate-pad/")}


@pytest.mark.parametrize(("start", "end", "pads", "layout"), [
    (-2, 4, (2, 0), "row_major"), (-1, 5, (1, 1), "row_major"), (0, 6, (0, 2), "row_major"),
    # a tile result: the fix slices the tile tensor; the constant pad is a concat with ttnn.full
    # (ttnn.pad cannot front-pad a tile tensor) or a ttnn.pad at the back
    (-2, 4, (2, 0), "tile"), (0, 6, (0, 2), "tile"),
])
def test_slice_concat_is_exact_and_constant_pad_differs_on_the_padded_elements(start, end, pads, layout):
    text = gather_pad_module(SMALL_SHAPE, start=start, end=end, out_layout=layout)
    a, findings = analysis(text)
    [pat] = rp.patterns(a)
    assert (pat.lo, pat.hi) == pads
    assert pat.source.name == ("%arg0" if layout == "row_major" else "%1")
    fixed = _fixed_texts(text, a, findings)
    for fixed_text in fixed.values():
        b, after = analysis(fixed_text)
        assert [f for f in after if f.severity == "error"] == []
    if layout == "tile":
        assert ('"ttnn.full"' in fixed["replicate-pad/constant-pad"]) == (pads[0] > 0)
    inputs = random_inputs(a.program.entry, seed=7)
    assert np.all(inputs[0] != 0)  # every replicated value differs from the constant 0
    [ref] = run(a.program, inputs)
    [sc] = run(parse_text(fixed["replicate-pad/slice-concat"], "sc.mlir"), inputs)
    [cp] = run(parse_text(fixed["replicate-pad/constant-pad"], "cp.mlir"), inputs)
    assert sc.dtype == ref.dtype and np.array_equal(sc, ref)
    differ = cp != ref
    padded = np.zeros(ref.shape, dtype=bool)
    lo, hi = pads
    padded[:, :, :lo] = True
    if hi:
        padded[:, :, ref.shape[2] - hi:] = True
    assert np.array_equal(differ, padded)
    assert int(differ.sum()) == pat.padded_elements == (lo + hi) * 64 * 16 * 16
    assert np.all(cp[padded] == 0)
