"""``ttnn.sort`` as ttnn 0.81.1 runs it (ttanalyze/ops/sort_scatter.py): the composite's programs and the
device operation's factories; and the campaign records of the family's other ops.

Every ``ttnn.sort``, ``cumsum``, ``cumprod``, ``gather`` and ``scatter`` instance the op-level campaign measured
on the mock P150 (the committed ``measurements/opdiff/results.jsonl.gz`` and ``measurements/opdiff/runs/
sort.jsonl.gz``: the sort draws the model was not tuned on, and the first draws of the other four) is compared
with the current model as ``opdiff.py rescore`` does; the other tests derive the figures by hand from sort.cpp,
sort_device_operation.cpp and sort_program_factory.cpp (tt-metal d80d9482, the ttnn 0.81.1 wheel's sources).
"""

from __future__ import annotations

import pytest

from benchmarks import opdiff
from benchmarks.opdiff_instances import generators
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.emit import module_text, single_op_func
from ttanalyze.ir.parse import parse_text
from ttanalyze.ir.attrs import DataType
from ttanalyze.ops.sort_scatter import (next_power_of_two, sort_cross_core_program, sort_factory,
                                        sort_multi_core_program, sort_single_core_program)
from ttanalyze.ops.tensors import MemCfg, Tensor

from .conftest import BH_SYSTEM_DESC, ROOT
from .test_cb_opdiff import FULL, T, run

GRID = (11, 10)
RUNS = ROOT / "measurements" / "opdiff" / "runs" / "sort.jsonl.gz"


OPS = ("ttnn.sort", "ttnn.cumsum", "ttnn.cumprod", "ttnn.gather", "ttnn.scatter")


def _records() -> list[dict]:
    recs = {**opdiff.load_results(RUNS), **opdiff.load_results()}
    return [r for r in recs.values() if r["op"] in OPS and r["outcome"] not in ("invalid", "not_replayed")]


RECORDS = _records()


def test_the_campaign_measured_the_family():
    ops = [r["op"] for r in RECORDS]
    assert ops.count("ttnn.sort") >= 132 and all(ops.count(op) >= 50 for op in OPS)


@pytest.mark.parametrize("rec", RECORDS, ids=[r["id"] for r in RECORDS])
def test_model_matches_every_measured_instance(rec):
    i = int(rec["id"].rsplit("/", 1)[1])
    new = opdiff.compare(opdiff.prepare(rec["op"], i, generators()), opdiff.device_from_record(rec["device"]))
    assert new["exact"], (new["outcome"], new["model"]["peak"], rec["device"]["peak"], new["model"]["reason"])
    assert new["checks"].get("spec", True), new["checks"]


def _t(shape, dtype="bf16", layout="tile") -> Tensor:
    return Tensor(tuple(shape), tuple(shape), DataType(dtype), layout, MemCfg("dram", "interleaved"))


def _factories(v) -> list[str]:
    return [s.factory.rsplit("::", 1)[-1] for s in v.stages]


def test_unaligned_width_is_filled_padded_to_a_power_of_two_sorted_and_sliced_back():
    # g1/ttnn.sort/9 (measured 181,248 B): [1, 3, 231, 300] f32; fill the tile padding (sort.cpp), then ttnn.pad
    # to W 512 (its own fill, PadTileMulticore), sort Wt = 16: c_0/c_1 4 x 4,096, c_2/c_3 16 x 4,096, c_4/c_5
    # 2 x 4,096, 1,024-B sync = 181,248 B; both results sliced back to 300 (SliceTile)
    v = run("ttnn.sort", [T((1, 3, 231, 300), "f32", buffer="l1")],
            [T((1, 3, 231, 300), "f32", buffer="l1"), T((1, 3, 231, 300), "u32", buffer="l1")],
            "dim = -1 : si8, descending = false, stable = false")
    assert _factories(v) == ["FillPadProgramFactory", "FillPadProgramFactory", "PadTileMulticoreProgramFactory",
                             "SortProgramFactorySingleRowSingleCore", "SliceTileProgramFactory",
                             "SliceTileProgramFactory"]
    sort = v.stages[3]
    assert [c.bytes for c in sort.static_cbs] == [16384, 16384, 65536, 65536, 8192, 8192, 1024]
    assert sum(c.bytes for c in sort.static_cbs) == 181_248
    # Ht = 3 x 256 / 32 = 24 rows: 2 full grid rows of 11 and 2 cores
    assert sort.cores.num_cores == 24


def test_a_power_of_two_width_above_a_tile_runs_the_sort_alone():
    v = run("ttnn.sort", [T((4, 1, 1024, 256))], [T((4, 1, 1024, 256)), T((4, 1, 1024, 256), "u16")],
            "dim = -1 : si8, descending = true, stable = false")
    assert _factories(v) == ["SortProgramFactorySingleRowSingleCore"]


def test_a_sort_dim_of_one_is_a_clone():
    # sort.cpp early exit: clone into the requested config + zeros_like (no program); measured g1/ttnn.sort/42
    v = run("ttnn.sort", [T((3, 3, 3, 1))], [T((3, 3, 3, 1)), T((3, 3, 3, 1), "u16")],
            "dim = -1 : si8, descending = false, stable = false")
    assert _factories(v) == ["CloneProgramFactory"]
    assert [c.bytes for c in v.stages[0].static_cbs] == [4096] and v.stages[0].cores.num_cores == 9


def test_another_dim_is_transposed_there_and_back_into_the_inputs_memory_config():
    v = run("ttnn.sort", [T((2, 64, 96))], [T((2, 64, 96), buffer="l1"), T((2, 64, 96), "u16", buffer="l1")],
            "dim = 1 : si8, descending = false, stable = false")
    names = _factories(v)
    assert names[0].startswith("Transpose") and names[-1].startswith("Transpose") and names[-2].startswith("Transpose")
    assert "SortProgramFactorySingleRowSingleCore" in names
    # the results end in the input's memory config (DRAM), not the requested L1 one
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(
        "ttnn.sort", [T((2, 64, 96))], [T((2, 64, 96), buffer="l1"), T((2, 64, 96), "u16", buffer="l1")],
        "dim = 1 : si8, descending = false, stable = false")), "t.mlir"))
    op = next(o for o in a.program.ops if o.name == "ttnn.sort")
    specs = opdiff.model_specs(a, op, MOCK, FULL)
    assert [(s["buffer_type"], s["dtype"]) for s in specs] == [("dram", "bf16"), ("dram", "u16")]


def test_factory_selection():
    # sort_device_operation.cpp: Wt <= 64 single core; CrossCore while Wt <= 110 x max(Wt / 110, 2) tiles
    # (capped at 128 per core): of the power-of-two widths only Wt = 128 (256 > 110 x 2, 512 > 110 x 4, ...);
    # UINT16 inputs above the threshold go to the DRAM multi-core factory
    assert sort_factory(_t((1, 1, 32, 2048)), GRID) == "SingleRowSingleCore"
    assert sort_factory(_t((1, 1, 32, 4096)), GRID) == "CrossCoreDataExchange"
    assert sort_factory(_t((1, 1, 32, 8192)), GRID) == "SingleRowMultiCore"
    assert sort_factory(_t((1, 1, 32, 4096), "u16"), GRID) == "SingleRowMultiCore"
    assert sort_factory(_t((1, 1, 32, 2048), "u16", "row_major"), GRID) == "SingleRowMultiCore"
    assert sort_factory(_t((1, 1, 32, 1024), "u16", "row_major"), GRID) == "SingleRowSingleCore"
    assert sort_factory(_t((1, 1, 32, 32 * 16384)), GRID) == "SingleRowMultiCore"
    assert [next_power_of_two(n) for n in (1, 2, 3, 64, 65)] == [1, 2, 4, 64, 128]


def test_cross_core_layout():
    # Wt = 128 on 110 cores: 64 virtual cores (rounddown_pow2), 2 tiles per core, 64 cores = 5 full rows + 9
    p = sort_cross_core_program(_t((1, 1, 64, 4096)), DataType("u16"), GRID)
    assert p.cores.num_cores == 64
    by_name = {c.name: c.bytes for c in p.cbs}
    assert by_name["input_tensor_transposed"] == 2 * 2048 and by_name["value_tensor_peer"] == 2 * 2048
    assert by_name["physical_core_lookup_table"] == 4096 and by_name["packer_unpacker_sync"] == 2048
    # f32: value tiles of 4,096 B in 4,096-B index-tile entries
    p = sort_cross_core_program(_t((1, 1, 32, 4096), "f32"), DataType("u32"), GRID)
    assert {c.name: c.bytes for c in p.cbs}["value_tensor_intermediate"] == 2 * 4096


def test_multi_core_layout():
    # Wt = 16384: 8,192 tile pairs >= 109 workers: every core but the coordinator (10, 9), which holds its own DFBs
    p = sort_multi_core_program(_t((1, 1, 32, 32 * 16384)), DataType("u32"), GRID)
    coord = [c for c in p.cbs if c.name.startswith("coord_")]
    assert [c.cores.num_cores for c in coord] == [1, 1]
    assert all(c.cores.num_cores == 109 for c in p.cbs if not c.name.startswith("coord_"))


def test_single_core_row_major_and_uint16():
    # row-major: c_0/c_1 hold Wt tiles, rm rows of W values / indices, rm_post_sort_index Wt tiles
    p = sort_single_core_program(_t((1, 1, 32, 128), "bf16", "row_major"), DataType("u16"), GRID)
    assert [(c.name, c.bytes) for c in p.cbs] == [
        ("input_tensor", 4 * 2048), ("index_tensor", 4 * 2048), ("input_tensor_transposed", 4 * 2048),
        ("index_tensor_transposed", 4 * 2048), ("synchronization", 1024), ("rm_input", 32 * 256),
        ("rm_value_output", 32 * 256), ("rm_index_output", 32 * 256), ("rm_post_sort_index", 4 * 2048)]
    # UINT16 TILE: values sort as FLOAT32 tiles, two UINT16 staging tiles
    p = sort_single_core_program(_t((1, 1, 32, 64), "u16"), DataType("u32"), GRID)
    assert [c.bytes for c in p.cbs] == [16384, 16384, 8192, 8192, 8192, 8192, 1024, 2048, 2048]


def test_row_major_sort_dims_below_a_tile_are_refused():
    # sort.cpp pads a row-major W of 3 to 4 (next power of two), which the device operation refuses (>= 64)
    v = run("ttnn.sort", [T((64, 3), layout="row_major")],
            [T((64, 3), layout="row_major"), T((64, 3), "u16", layout="row_major")],
            "dim = -1 : si8, descending = false, stable = false")
    assert v.status == "rejected" and "power of two >= 64" in v.reason


def test_block_float_inputs_are_refused():
    v = run("ttnn.sort", [T((64, 64), "bfp_bf8")], [T((64, 64), "bfp_bf8"), T((64, 64), "u16")],
            "dim = -1 : si8, descending = false, stable = false")
    assert v.status == "rejected" and "BFLOAT16, UINT16, or FLOAT32" in v.reason
