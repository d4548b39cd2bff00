"""The op space the g1 generators never draw (benchmarks/opdiff_space.py) and the model fixes its draws drove.

Each fix cites the held-out instance that measured it (``measurements/opdiff/runs/space.jsonl.gz``, keyed by
instance id: the record holds the device's error text); the instances are regenerated from their ids.
"""

from __future__ import annotations

import random

import pytest

from benchmarks.opdiff_instances import gen_matmul, generators, instance, instances
from benchmarks.opdiff_space import SPACE_FROM, SPACE_WEIGHT, space_generators
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.parse import parse_text
from ttanalyze.programs import program_of

FULL = 1_461_120


def program(op: str, i: int):
    inst = instance(op, i)
    a = analyze(parse_text(inst.text, f"{inst.id}.mlir"))
    return program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=FULL)


def test_space_ids_start_above_the_g1_ids_and_leave_them_as_drawn():
    g = generators()
    for i in (0, 7, 1199):
        assert g["ttnn.matmul"](random.Random(f"g1/ttnn.matmul/{i}"), i).key == \
            gen_matmul("ttnn.matmul")(random.Random(f"g1/ttnn.matmul/{i}"), i).key
    ids = [i for op, i in instances(10, "ttnn.matmul") if op == "ttnn.matmul"]
    assert len([i for i in ids if i >= SPACE_FROM]) == 10 * SPACE_WEIGHT["ttnn.matmul"]
    assert set(space_generators()) <= set(g)


@pytest.mark.parametrize("op", sorted(SPACE_WEIGHT))
def test_every_space_draw_parses_and_is_analyzed(op):
    for i in range(SPACE_FROM, SPACE_FROM + 12):
        inst = instance(op, i)
        a = analyze(parse_text(inst.text, f"{inst.id}.mlir"))
        assert any(o.pos.line == inst.line for o in a.program.ops)


@pytest.mark.parametrize("op, i, message", [
    # an `activation` with a sharded a: bound_matmul refuses (matmul.cpp:243 in ttnn 0.81.1)
    ("ttnn.matmul", 100020, "Sharded matmul run with SILU activation"),
    ("ttnn.matmul", 100038, "Sharded matmul run with RELU activation"),
    # a block-sharded output whose grid passes the 2D config's 7x8 grid (matmul_device_operation.cpp:754)
    ("ttnn.matmul", 100019, "must lie within extent 7-8"),
    # ... and of the automatic 1D config's 2x1 grid
    ("ttnn.matmul", 100025, "must lie within extent 2-1"),
    # the 2D factory's block-sharded output with B > 1 (fuse_batch off; matmul_utilities.hpp:46)
    ("ttnn.matmul", 100057, "Block-sharded output is incompatible with batch > 1"),
    # 5 x 1 subblock tiles with fp32 accumulation (4 destination registers; matmul_device_operation.cpp:632)
    ("ttnn.matmul", 100029, "needs to be at most 4"),
    # 1D config, 60 blocks on a 5x4 grid (matmul_device_operation.cpp:826)
    ("ttnn.matmul", 100056, "60 blocks > 20 cores"),
    # 1D config with a width-sharded output: out_subblock_h 8 > 1 and out_subblock_w 1 != per_core_N 3 (:1527)
    ("ttnn.linear", 100020, "must equal per_core_N (3) or out_subblock_h (8) must be 1"),
    # the output ttnn builds: a [per_core_M * 32, per_core_N * 32] height shard narrower than the row
    ("ttnn.linear", 100001, "Shard width 32 must match physical width 640 for height sharded"),
    # ... ttnn's own 1D config puts a block-sharded output on 16 cores of a 10-wide grid: two ranges
    ("ttnn.matmul", 100049, "Shard grid must be one full rectangular grid for block sharded!"),
    # ... and a height-sharded one on the 5 cores of its blocks, where the requested grid has 20
    ("ttnn.linear", 100064, "Number of shards along height 20 must not exceed number of cores 5"),
    # 2D config over a block-sharded a whose 4-tile shards are not per_core_M (2) tall (:1789)
    ("ttnn.matmul", 100108, "per_core_M (2) must equal shard_shape[0] / in0_tile.get_height() (4)"),
    # fuse_batch with a batched b (:2447)
    ("ttnn.matmul", 100165, "Matmul with fused batch requires input tensors of shapes BCMK*11KN=BCMN"),
    # 1D mcast_in0 over a width-sharded a on 21 cores: the factory spreads in0 over them, the config grid has 8
    ("ttnn.linear", 100028, "Target number of cores 21 is greater than total available cores 8"),
])
def test_matmul_refusals_of_the_space_draws(op, i, message):
    p = program(op, i)
    assert p.status == "rejected" and message in p.reason, p.reason
