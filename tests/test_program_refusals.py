"""Refusals the whole-program campaign exposed (benchmarks/programs): factory TT_FATALs on wide
row-major rows, and the model's doubt about conv2d.

Figures measured on the mock P150 with ttnn 0.81.1 (tt-metal d80d9482, L1 base 111,744 B) and
in the real compiler's programs (jax-tt-plugin 0.1.3, tt-metal 614f605f, base 177,280 B):
fixtures/real/programs/<case>/case.json holds each program's recorded outcome.
"""

from __future__ import annotations

import pytest

from ttanalyze.ops import data_movement as dm
from ttanalyze.ops.cb import DeviceRejection

from .test_cb_data_movement import T, ctx_of, pad_attrs

# l1_size 1,572,864 - base 111,744 = 1,461,120 B (capacity); l1_size / 2 - base = 674,688 B (pad's budget).


def test_pad_row_beyond_budget_is_refused():
    # [1, 1, 3, 200000] f32 + 8 on W: row 800,032 B (16-B aligned), ceil(2048 / 800,032) = 1 row per barrier:
    # 800,032 > 674,688 -> "ttnn.pad: padded row of 800032 B does not fit in the per-core L1 budget (674688 B)".
    with pytest.raises(DeviceRejection, match=r"800,032 B .* \(674,688 B"):
        dm.device_programs(ctx_of("ttnn.pad", [T([1, 1, 3, 200000], "row_major", "f32")],
                                  T([1, 1, 3, 200008], "row_major", "f32"), pad_attrs([0, 0, 0, 0, 0, 0, 0, 8])))


def test_pad_row_within_budget_builds_its_program():
    # 150,008 x 4 = 600,032 B <= 674,688: no TT_FATAL; one batch of one row (the DFB itself then overflows
    # L1 on the device: "grow to 1911936 B", measured; TTA010's business).
    [p] = dm.device_programs(ctx_of("ttnn.pad", [T([1, 1, 3, 150000], "row_major", "f32")],
                                    T([1, 1, 3, 150008], "row_major", "f32"), pad_attrs([0, 0, 0, 0, 0, 0, 0, 8])))
    assert [(c.page_bytes, c.pages) for c in p.cbs] == [(600_032, 1)]


@pytest.mark.parametrize("n, refused", [(174_400, False), (200_000, True)])
def test_concat_row_beyond_capacity_is_refused(n, refused):
    # Row-major [1, n] f32 concatenated on dim 1: one output row of 2n x 4 B.  2 x 174,400 x 4 = 1,395,200 B
    # fits 1,461,120 (ran, measured); 1,600,000 B does not ("required DFB entry size (1600000 B) exceeds
    # per-core L1 capacity (1461120 B)", measured).
    ctx = ctx_of("ttnn.concat", [T([1, n], "row_major", "f32")] * 2, T([1, 2 * n], "row_major", "f32"),
                 "dim = 1 : si32")
    if refused:
        with pytest.raises(DeviceRejection, match=r"1,600,000 B.*1,461,120 B"):
            dm.device_programs(ctx)
    else:
        [p] = dm.device_programs(ctx)
        assert [(c.page_bytes, c.pages) for c in p.cbs] == [(1_395_200, 1)]
