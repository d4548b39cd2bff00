"""``ttnn.indexer_score_dsa``: the program ttnn 0.81.1 runs for it, its refusals, and what it returns.

tt-mlir's runtime (``runtime/lib/ttnn/operations/transformer/indexer_score_dsa.cpp`` @19c86fca) calls
``ttnn::experimental::indexer_score_dsa(query, key, weights, chunk_start_idx)`` with ttnn's default program
config (``q_chunk_size`` = ``k_chunk_size`` = 32, one head per group) and compute config.  ttnn 0.81.1
(measured on the mock P150: measurements/dialect/results_norm.jsonl, ``indexer_score_dsa/*``) refuses, in
this order (``indexer_score_device_operation.cpp`` lines 629, 631, 640 and 665 of its build):

* weights that are not ``[B, 1, Sq, Hi]``: "weights must be [B, 1, Sq, Hi] matching q [B, Hi, Sq, D]".
  tt-mlir's verifier (``IndexerScoreDsaOp::verify``) asks for ``[B, Hi, Sq, 1]``, so every op it emits with
  more than one indexer head is refused (TTA013); with ``Hi = 1`` the two forms agree;
* weights that are not bfloat16: "weights must be bfloat16";
* a query neither bfloat16 nor bfloat8_b (line 640): "q must be bfloat16 or bfloat8_b";
* ``Sq``, ``T`` or ``D`` not a tile multiple: "Sq ..., T ..., D ... must be tile-aligned".

The program (``IndexerScoreProgramFactory``) runs on a ``rows x cols`` rectangle from core (0, 0): the
``Sq / 32`` q-row groups go to ``rows_for_groups`` rows (the largest divisor of the group count that fits
the grid's height), the ``T / 32`` k bands to ``min(bands, grid x)`` columns, and short sequences replicate
the rows ``band_row_blocks`` times (tt-metal ``indexer_score/device/kernels/indexer_score_work_split.hpp``
@119ec1de, which the measured core rectangles follow).  Its seven CBs, measured on ttnn 0.81.1 (the stored
factory source has since changed them): q ``Dt`` tiles (``2 Dt`` with more than one head: streamed), k
``2 Dt``, the weights ``Hi`` bf16 tiles, the causal mask 2, the q.k tile 1, the accumulator and the output
strip 2 each (bf16).  The result is ``[1, 1, Sq, T]`` bfloat16, ROW_MAJOR, in the query's memory config
(measured), whatever layout the IR declares.
"""

from __future__ import annotations

from ..ir.attrs import DataType
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set
from .registry import register_cb, register_check, register_spec
from .spec import TensorSpec
from .tensors import TILE, Tensor, operand

_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/indexer_score/device/kernels/indexer_score_work_split.hpp "
        "@119ec1de (core rectangle); CBs and checks measured on ttnn 0.81.1")
BF16 = DataType("bf16")


def _largest_divisor_leq(n: int, cap: int) -> int:
    """The largest divisor of ``n`` that is at most ``cap`` (``largest_divisor_leq``), at least 1."""
    return max((d for d in range(1, min(n, cap) + 1) if n % d == 0), default=1)


def core_rectangle(sq_tiles: int, t_tiles: int, grid: tuple[int, int]) -> tuple[int, int]:
    """``(cols, rows)`` of the banded schedule for ``sq_tiles`` q-row groups and ``t_tiles`` k bands on a
    ``grid`` (x, y) worker grid (indexer_score_work_split.hpp: ``rows_for_groups * band_row_blocks`` rows,
    ``cols_for_bands`` columns)."""
    gx, gy = grid
    group_rows = _largest_divisor_leq(sq_tiles, gy)
    cols = min(t_tiles, gx)
    blocks = max(1, min(gy // group_rows, t_tiles // cols))
    return cols, group_rows * blocks


def check_indexer(q: Tensor, k: Tensor, w: Tensor) -> None:
    """ttnn 0.81.1's validation of query ``[1, Hi, Sq, D]``, key ``[1, 1, T, D]`` and weights (measured order).

    Raises:
        DeviceRejection: weights not ``[1, 1, Sq, Hi]`` or not bfloat16, a query neither bfloat16 nor
            bfloat8_b; Sq, T or D not tile multiples.
    """
    _, hi, sq, d = q.shape
    t = k.shape[2]
    if len(w.shape) != 4 or w.shape[1] != 1 or w.shape[2] != sq or w.shape[3] != hi:
        raise DeviceRejection(f"ttnn 0.81.1 refuses weights {list(w.shape)}: \"weights must be [B, 1, Sq, Hi] matching "
                              f"q [B, Hi, Sq, D]\" (tt-mlir's verifier asks for [B, Hi, Sq, 1]; the two agree only "
                              f"for one head)")
    if w.dtype != BF16:
        raise DeviceRejection(f"ttnn 0.81.1 refuses {w.dtype} weights: \"weights must be bfloat16\"")
    if q.dtype.name not in ("bf16", "bfp_bf8"):
        raise DeviceRejection(f"ttnn 0.81.1 refuses a {q.dtype} query: \"q must be bfloat16 or bfloat8_b\"")
    if sq % TILE or t % TILE or d % TILE:
        raise DeviceRejection(f"ttnn 0.81.1 refuses the shapes: \"Sq {sq}, T {t}, D {d} must be tile-aligned\"")


def _operands(ctx: CBContext) -> tuple[Tensor, Tensor, Tensor]:
    if ctx.tt_metal != "0.81.1":
        raise CBModelError(f"indexer_score_dsa is measured on ttnn 0.81.1 only, not tt-metal {ctx.tt_metal}")
    if len(ctx.op.operands) < 3:
        raise CBModelError("indexer_score_dsa needs query, key and weights")
    q, k, w = (operand(ctx, i) for i in range(3))
    if q.rank != 4 or k.rank != 4:
        raise CBModelError("indexer_score_dsa needs 4D query and key")
    return q, k, w


def indexer_program(q: Tensor, k: Tensor, w: Tensor, out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """``IndexerScoreProgramFactory`` of ``out [1, 1, Sq, T] = sum_h relu(q_h . k^T) * w_h`` (module docstring).

    Raises:
        DeviceRejection: see :func:`check_indexer`.
        CBModelError: sharded tensors, or a query / key dtype other than bf16 and bfloat8_b.
    """
    check_indexer(q, k, w)
    if q.sharded or k.sharded or w.sharded:
        raise CBModelError("indexer_score_dsa with sharded tensors is not modeled")
    if k.dtype.name not in ("bf16", "bfp_bf8"):
        raise CBModelError(f"indexer_score_dsa with a {k.dtype} key is not measured")
    _, hi, sq, d = q.shape
    dt = d // TILE
    cols, rows = core_rectangle(sq // TILE, k.shape[2] // TILE, grid)
    cores = cores_set(core_range(0, 0, cols - 1, rows - 1))
    bf16 = BF16.tile_bytes()
    specs = [("q", q.tile_bytes, (2 if hi > 1 else 1) * dt), ("k", k.tile_bytes, 2 * dt), ("weights", bf16, hi),
             ("mask", bf16, 2), ("qk", bf16, 1), ("acc", bf16, 2), ("out", bf16, 2)]
    return ProgramModel("IndexerScoreDeviceOperation::IndexerScoreProgramFactory", _SRC, cores,
                        [CB(i, name, page, n, cores) for i, (name, page, n) in enumerate(specs)],
                        [f"{sq // TILE} q-row groups x {k.shape[2] // TILE} k bands on {cols} x {rows} cores, "
                         f"{hi} head(s) of Dt {dt}"], inputs=(q, k, w), outputs=(out,))


def _result(q: Tensor, k: Tensor) -> Tensor:
    """``[1, 1, Sq, T]`` bfloat16 ROW_MAJOR in the query's memory config (measured)."""
    return q.with_(shape=(1, 1, q.shape[2], k.shape[2]), dtype=BF16, layout="row_major")


@register_cb("ttnn.indexer_score_dsa")
def indexer_score_dsa_cb(ctx: CBContext) -> ProgramModel:
    """The one program of ``indexer_score_dsa`` (:func:`indexer_program`) into what ttnn returns."""
    q, k, w = _operands(ctx)
    return indexer_program(q, k, w, _result(q, k), ctx.grid)


@register_spec("ttnn.indexer_score_dsa")
def indexer_score_dsa_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ttnn 0.81.1 returns (:func:`_result`); nothing when it refuses the op."""
    q, k, w = _operands(ctx)
    check_indexer(q, k, w)
    return [_result(q, k).spec()]


register_check("ttnn.indexer_score_dsa", "mock",
               "tests/test_ops_dialect_norm.py against measurements/dialect/results_norm.jsonl",
               ("IndexerScoreDeviceOperation",))
