"""Op instances measured on the mock device for the sort and scan models (ttanalyze/ops/sort_scatter.py).

The opdiff campaign's ``ttnn.sort`` generator draws only last-dim TILE sorts below 64 tiles; these cases pin
what it cannot reach: sorts over other dims and ranks (transposes around the device operation), row-major
inputs (the H pad and the row-major slices), UINT16 inputs, widths that select the cross-core (Wt = 128) and
DRAM multi-core (Wt >= 256) factories, and the scans (``cumsum``/``cumprod``) along every kind of dim: the
tile-axis kernel (bf16 cumsum along H or W), the permutes around ``AccumulationProgramFactory``, the direct
accumulation over a leading dim of a rank >= 4 tensor, f32 and int32.  Each case is one TTNN op as IR
(:class:`~measurements.dialect.cases_misc.MiscCase`) and the ttnn call tt-mlir's runtime makes for it;
``measurements/dialect/probe_scan.py`` replays them into ``results_scan.jsonl`` and
``tests/test_ops_dialect_scan.py`` compares the models with it.
"""

from __future__ import annotations

from measurements.dialect.cases_misc import MiscCase


def _sort(i: int, shape, dt="bf16", layout="tile", buf="dram", dim=-1, out_buf=None) -> MiscCase:
    idx = "u32" if dt in ("f32", "u16") or shape[dim] >= 65535 else "u16"
    out = out_buf or buf
    return MiscCase(f"sort/{i}", "ttnn.sort", ((tuple(shape), dt, layout, buf),),
                    ((tuple(shape), dt, layout, out), (tuple(shape), idx, layout, out)),
                    f"dim = {dim} : si8, descending = false, stable = false", kwargs={"dim": dim, "descending": False})


def _scan(name: str, i: int, shape, dim: int, dt="bf16", buf="dram", out_buf=None) -> MiscCase:
    return MiscCase(f"{name}/{i}", f"ttnn.{name}", ((tuple(shape), dt, "tile", buf),),
                    ((tuple(shape), dt, "tile", out_buf or buf),), f"dim = {dim} : si32", kwargs={"dim": dim})


SORT_CASES = [
    _sort(0, (2, 64, 96), dim=1),                    # H: transpose WH there and back
    _sort(1, (3, 40, 50), "f32", dim=0),            # a leading dim of a rank-3 tensor
    _sort(2, (2, 3, 33, 70), dim=1, buf="l1"),      # C of a 4D tensor, L1
    _sort(3, (2, 2, 3, 40, 96)),                    # rank 5, last dim (squeeze to 4D, a view)
    _sort(4, (2, 2, 3, 40, 96), dim=2),             # rank 5, another dim (a permute)
    _sort(5, (64, 100), layout="row_major"),        # row-major: pad W to 128, slices back
    _sort(6, (3, 100), layout="row_major"),         # row-major: N*C*H = 3 padded to 32 rows
    _sort(7, (40, 3), layout="row_major"),          # row-major W 3 -> 4: refused (power of two >= 64)
    _sort(8, (2, 64, 64), "u16"),                   # UINT16: f32 sort tiles + staging
    _sort(9, (32, 4096)),                           # Wt 128: CrossCoreDataExchange
    _sort(10, (64, 4000), "f32"),                   # Wt 125 -> 128 after the pad, f32
    _sort(11, (32, 8192)),                          # Wt 256: SingleRowMultiCore
    _sort(12, (32, 4096), "u16"),                   # UINT16 above the threshold: SingleRowMultiCore
    _sort(13, (1, 3, 32, 8192), "f32", out_buf="l1"),
    _sort(14, (2, 32, 2048), layout="row_major"),   # row-major Wt 64: single core
    _sort(15, (64, 4096), layout="row_major"),      # row-major Wt 128: cross-core
    _sort(16, (7,)),                                # rank 1
    _sort(17, (5, 1)),                              # sort dim of 1: clone + zeros_like
    _sort(18, (32, 8192), layout="row_major"),      # row-major Wt 256: SingleRowMultiCore's row-major DFBs
    _sort(19, (32, 2048), "u16", "row_major"),      # row-major UINT16 above Wt 32: SingleRowMultiCore
    _sort(20, (2, 32, 1024), "u16", "row_major"),   # row-major UINT16 Wt 32: single core, the UINT16 row stages
    _sort(21, (64, 100), "f32", "row_major", dim=0),  # row-major, another dim
]

SCAN_CASES = [
    _scan("cumsum", 0, (2, 64, 96), -2),             # bf16 along H, aligned
    _scan("cumsum", 1, (3, 50, 64), 1),              # bf16 along H, H not a tile multiple
    _scan("cumsum", 2, (4, 100), -1),                # bf16 along W, W not a tile multiple
    _scan("cumsum", 3, (64, 96), 1, "f32"),          # f32 along W
    _scan("cumsum", 4, (2, 3, 64, 64), 0),           # dim 0 of a 4D tensor: no permute
    _scan("cumsum", 5, (2, 3, 4, 32, 64), 1),        # rank 5, dim 1: no permute
    _scan("cumsum", 6, (2, 3, 4, 32, 64), 3, "f32"),  # rank 5, H, f32
    _scan("cumsum", 7, (1024, 64), -1, buf="l1"),    # bf16 along W on 32 tile rows (merge of the cores)
    _scan("cumsum", 8, (40, 64), 0, "si32"),         # int32 along H
    _scan("cumsum", 9, (300,), 0),                   # rank 1
    _scan("cumsum", 10, (2, 96, 64), 0, out_buf="l1"),
    _scan("cumprod", 0, (2, 64, 96), -2),            # bf16 along H
    _scan("cumprod", 1, (2, 3, 64, 64), 0, "f32"),   # dim 0 of a 4D tensor
    _scan("cumprod", 2, (300,), 0),                  # rank 1
    _scan("cumprod", 3, (96, 40), 0, buf="l1"),
    _scan("cumprod", 4, (2, 3, 4, 32, 64), 4),       # rank 5, W
]

CASES: list[MiscCase] = SORT_CASES + SCAN_CASES
