"""The circular-buffer rules (TTA010, TTA011) and the L1 timeline with CBs, on a stand-in CB model.

The stand-in registers a known CB list for ``ttnn.relu`` so that the rules'
arithmetic is checked independently of any real factory model.
"""

from __future__ import annotations

import pytest

from ttanalyze.ops import registry
from ttanalyze.ops.cb import CB, ProgramModel, core_range, cores_set
from ttanalyze.ops.work_split import num_cores_to_corerangeset

from .conftest import analyze_text, bh_module, findings_of, wh_module

DRAM = "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<{r}x{c}x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>"
L1 = "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <8x8>, memref<1x{n}x!ttcore.tile<32x32, bf16>, #l1>, <interleaved>>"


@pytest.fixture()
def relu_cbs(monkeypatch):
    """Register a CB model for ttnn.relu: 2 CBs of ``pages`` tiles on core (0,0), 1 CB of 2 tiles on all 64 cores."""
    state = {"pages": 2}

    def model(ctx):
        everywhere = num_cores_to_corerangeset(64, ctx.grid, row_wise=True)
        one = cores_set(core_range(0, 0, 0, 0))
        return ProgramModel("StandInFactory", "test stand-in", everywhere, [
            CB(0, "in", 2048, state["pages"], one),
            CB(16, "out", 2048, state["pages"], one),
            CB(1, "aux", 2048, 2, everywhere),
        ])

    monkeypatch.setitem(registry.CB_MODELS, "ttnn.relu", model)
    return state


def _program(l1_tiles_per_core: int = 0) -> str:
    """relu of a DRAM 32x32 tensor, with an L1 interleaved tensor of ``l1_tiles_per_core`` tiles per core alive."""
    if not l1_tiles_per_core:
        aliases = "#d = " + DRAM.format(r=1, c=1)
        body = '    %0 = "ttnn.relu"(%arg0) : (tensor<32x32xbf16, #d>) -> tensor<32x32xbf16, #d>\n    return %0 : tensor<32x32xbf16, #d>'
        return wh_module(aliases, body, "%arg0: tensor<32x32xbf16, #d>", "tensor<32x32xbf16, #d>")
    n = l1_tiles_per_core
    aliases = "#d = " + DRAM.format(r=1, c=1) + "\n#l = " + L1.format(n=n) + "\n#b = " + DRAM.format(r=64, c=n)
    body = (
        '    %0 = "ttnn.to_memory_config"(%big) : (tensor<2048x' + str(32 * n) + 'xbf16, #b>) -> tensor<2048x' + str(32 * n) + 'xbf16, #l>\n'
        '    %1 = "ttnn.relu"(%arg0) : (tensor<32x32xbf16, #d>) -> tensor<32x32xbf16, #d>\n'
        '    %2 = "ttnn.add"(%0, %0) : (tensor<2048x' + str(32 * n) + 'xbf16, #l>, tensor<2048x' + str(32 * n) + 'xbf16, #l>) -> tensor<2048x' + str(32 * n) + 'xbf16, #l>\n'
        '    return %1 : tensor<32x32xbf16, #d>'
    )
    return wh_module(aliases, body, f"%arg0: tensor<32x32xbf16, #d>, %big: tensor<2048x{32 * n}xbf16, #b>", "tensor<32x32xbf16, #d>")


def test_per_core_peak_honours_core_ranges(relu_cbs):
    a = analyze_text(_program())
    prog = a.programs[0].program
    # core (0,0): 2*2048 + 2*2048 + 2*2048 = 12,288 B; any other core only the 4,096 B aux CB
    assert prog.busiest_core() == ((0, 0), 12_288)
    assert a.memory.points[0].cb_per_core == 12_288
    assert findings_of(a, "TTA010") == []


def test_cbs_beyond_max_l1_size(relu_cbs):
    # Wormhole: base 103,712; 700 pages per CB: 2 * 700 * 2,048 + 4,096 = 2,871,296 B of CBs on core
    # (0,0); base + CBs = 2,975,008 > l1_size 1,499,136.
    relu_cbs["pages"] = 700
    a = analyze_text(_program())
    [f] = findings_of(a, "TTA010")
    assert f.data["check"] == "max_l1_size"
    assert f.data["cb_bytes"] == 2_871_296 and f.data["cb_region_end"] == 2_975_008
    assert f.data["core"] == [0, 0]
    assert "on core range [(0,0)-(0,0)] grow to 2,975,008 B" in f.message
    assert f.data["reported_range"] == [0, 0, 0, 0] and f.data["reported_end"] == 2_975_008


def test_cbs_clash_with_live_l1_buffers(relu_cbs):
    # A live L1 tensor of 2048 x (32*300) bf16 = 64 * 300 tiles over 64 cores = 300 tiles = 614,400 B per core.
    # L1 buffers start at 1,499,136 - 65,536 (L1_SMALL) - 614,400 = 819,200. relu's CBs with 180 pages:
    # 2 * 180 * 2,048 + 4,096 = 741,376 B -> region ends at 103,712 + 741,376 = 845,088 > 819,200: clash.
    relu_cbs["pages"] = 180
    a = analyze_text(_program(l1_tiles_per_core=300))
    relu = a.program.ops[1]
    assert a.memory.points[relu.index].l1_per_core == 614_400
    [f] = findings_of(a, "TTA010")
    assert f.data["check"] == "clash"
    assert f.data["lowest_l1_buffer"] == 819_200 and f.data["cb_region_end"] == 845_088
    # free L1 the factory saw: 1,499,136 - 103,712 - 65,536 - 614,400 = 715,488 B
    from ttanalyze.programs import max_l1_space
    assert max_l1_space(a, relu) == 715_488


def test_unmodeled_cbs_are_reported():
    a = analyze_text(_program().replace('"ttnn.relu"', '"ttnn.sampling"'))
    [f] = findings_of(a, "TTA011")
    assert f.severity == "info" and "ttnn.sampling" in f.message


def test_tta010_counts_kernel_scratchpads():
    # The opdiff campaign's g1/ttnn.repeat/11 (measurements/opdiff): a repeat of a 614,915-wide si32 row
    # runs RepeatProgramFactoryHigherDim with ~4.9 MB of kernel scratchpads per core and no static CB;
    # tt-metal refuses it ("grow to" about 5 MB), so check must too.
    lay = ("#ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * {r} + d1 * {r} + d2, d3), <1x1>, "
           "memref<{m}x614915xsi32, #ttnn.buffer_type<dram>>, <interleaved>>")
    t_in = f"tensor<1x1x1x614915xsi32, {lay.format(r=1, m=1)}>"
    t_out = f"tensor<3x1x4x614915xsi32, {lay.format(r=4, m=12)}>"
    body = f"""
    %0 = "ttnn.repeat"(%arg0) {{repeat_dims = #ttnn.shape<3x1x4x1>}} : ({t_in}) -> {t_out}
    return %0 : {t_out}"""
    a = analyze_text(bh_module("", body, f"%arg0: {t_in}", t_out))
    [f] = findings_of(a, "TTA010")
    assert f.severity == "error"
    scratch = a.programs[0].stages[0].extra_l1_per_core
    assert scratch > a.arch.l1_size and f.data["cb_bytes"] == scratch
    assert f"kernel scratchpads {scratch:,} B" in f.message
    assert a.memory.points[0].cb_per_core == scratch
