"""Top-k / top-p sampling: ``ttnn.sampling``.

Shape rule (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca ``SamplingOp::verify``): values and
indices of one shape, either ``[batch, candidates]`` (result ``[batch]``) or the kernel-true
``[1, 1, batch, candidates]`` (result ``[1, 1, 1, batch]``) that tt-mlir's ``SamplingOpRank2RewritePattern``
produces; ``1 <= batch <= 32``; ``k``, ``p`` and ``temp`` 1D of ``batch``.

Program: tt-mlir's runtime calls ``ttnn::sampling(values, indices, k, p, temp, seed)``
(``runtime/lib/ttnn/operations/reduction/sampling.cpp`` @19c86fca), one ``SamplingDeviceOperation`` program
with one core per user (:func:`sampling_cb`); its output (:func:`sampling_spec`) is ``[1, 1, 1, batch]`` UINT32
ROW_MAJOR in the values' memory config (``sampling_device_operation.cpp`` ``compute_output_specs``).
"""

from __future__ import annotations

from ..ir.attrs import DataType
from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .registry import ShapeError, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import TILE, operand, result
from .work_split import num_cores_to_corerangeset

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
MAX_USERS = 32  # sampling_device_operation.cpp: "between 1 and 32 users (one core per user)"


@register("ttnn.sampling", "sampling", ("seed", "memory_config"), f"{_SRC} SamplingOp::verify")
def sampling(op: Op):
    """``[B, W]`` -> ``[B]``, or ``[1, 1, B, W]`` -> ``[1, 1, 1, B]``, with ``1 <= B <= 32``.

    Raises:
        ShapeError: another rank, values and indices of different shapes, leading dims of the rank-4 form
            other than 1, a batch outside [1, 32], or ``k``/``p``/``temp`` not ``[B]``.
    """
    if len(op.operands) < 5:
        raise ShapeError(f"{op.name} expects input_values, input_indices, k, p and temp")
    values, indices = tensor_shape(op, 0), tensor_shape(op, 1)
    if len(values) not in (2, 4):
        raise ShapeError(f"{op.name}: input_values must be 2D [batch, candidates] or 4D [1, 1, batch, candidates]")
    if indices != values:
        raise ShapeError(f"{op.name}: input_values {list(values)} and input_indices {list(indices)} must have the same shape")
    if len(values) == 4 and values[:2] != (1, 1):
        raise ShapeError(f"{op.name}: rank-4 input_values leading dims must be [1, 1, batch, candidates]")
    batch = values[-2]
    if not 1 <= batch <= MAX_USERS:
        raise ShapeError(f"{op.name}: batch ({batch}) must be in [1, {MAX_USERS}] (kernel limit)")
    for i, name in ((2, "k"), (3, "p"), (4, "temp")):
        if tensor_shape(op, i) != (batch,):
            raise ShapeError(f"{op.name}: {name} must be 1D [{batch}], got {list(tensor_shape(op, i))}")
    return [(batch,)] if len(values) == 2 else [(1, 1, 1, batch)]


_SAMPLING_SRC = ("tt-metal ttnn/cpp/ttnn/operations/reduction/sampling/device/sampling_program_factory.cpp "
                 "@00555207, checks sampling_device_operation.cpp @01c8afed (fitted to ttnn 0.81.1: "
                 "measurements/dialect/results_moe.jsonl)")
_UINT16_TILE = 2048  # tile_size(UInt16): the index CBs' format
_BF16_TILE = 2048  # tile_size(Float16_b): the scaler and random-number CBs


def _check(values, indices, k, p, temp, name: str) -> None:
    """``SamplingDeviceOperation::validate_on_program_cache_miss`` (the checks ttnn 0.81.1 reports, measured)."""
    checks = (
        (values.sharded or indices.sharded, "Only INTERLEAVED memory layout is supported for inputs!"),
        (values.dtype.name != "bf16", "Only BFLOAT16 is supported for inputs!"),
        (not values.tiled, "Only TILE_LAYOUT is supported for inputs!"),
        (indices.dtype.name not in ("u32", "si32"), "Only UINT32 & INT32 dtypes are supported for input indices!"),
        (indices.tiled, "Only ROW_MAJOR is supported for input indices!"),
        (k.dtype.name not in ("u32", "si32"), "Only UINT32 & INT32 dtypes are supported for k!"),
        (p.dtype.name != "bf16", "Only BFLOAT16 dtypes are supported for p!"),
        (temp.dtype.name != "bf16", "Only BFLOAT16 dtypes are supported for temp!"),
        (k.tiled or p.tiled or temp.tiled, "Only ROW_MAJOR layout is supported for k, p and temp!"),
    )
    for failed, message in checks:
        if failed:
            raise DeviceRejection(f"{name}: TT_FATAL {message} (sampling_device_operation.cpp)")
    w = values.shape[3]
    if w == 0 or w % TILE:
        raise DeviceRejection(f"{name}: TT_FATAL Input inner dim ({w}) must be non-zero and divisible by 32 "
                              "(sampling_device_operation.cpp)")
    wt = w // TILE
    if wt & (wt - 1):
        raise DeviceRejection(f"{name}: TT_FATAL Input inner dim ({w}) must yield a power-of-2 number of tiles "
                              f"(Wt = {wt}) (sampling_device_operation.cpp)")


@register_cb("ttnn.sampling")
def sampling_cb(ctx: CBContext) -> ProgramModel:
    """``SamplingProgramFactory``: one core per user, every CB on each of those cores.

    With ``n`` users (the values' dim 2), ``Wt = W / 32`` and ``T`` = 2,048 B (a bf16 / UInt16 tile): cores
    ``num_cores_to_corerangeset(n, grid, row_wise=true)``; ``c_0`` values 4T, ``c_2`` indices 4 UInt16 tiles,
    ``c_3`` identity scaler 1T, one more 1-tile Float16_b CB that ttnn 0.81.1 creates after it (measured; not in
    the stored source), ``c_4`` top-k mask 4T, ``c_5``/``c_6`` the transposed values and indices ``Wt`` tiles
    each, ``c_7`` values, ``c_1`` local values and ``c_8`` local indices 2 tiles each, ``c_9``/``c_10`` running
    max and sum and ``c_11`` the random number 1T each, ``c_12`` the final indices ``32 * Wt * 32 * element size
    of the indices`` B (one page of the tile-padded rows), ``c_13`` the output ``2n`` B; then three kernel
    scratchpads per core for k, p and temp: 128 B, ``4n`` B and ``2n`` B (ttnn 0.81.1 measured: the stored
    source makes them CBs of ``4n``, ``2n`` and ``2n`` B).

    Raises:
        DeviceRejection: the device operation's checks (:func:`_check`).
        CBModelError: the rank-2 form (tt-mlir rewrites it to rank 4 before the runtime sees it).
    """
    name = ctx.op.name
    values, indices, k, p, temp = (operand(ctx, i) for i in range(5))
    if values.rank != 4:
        raise CBModelError(f"{name}: the rank-{values.rank} form (tt-mlir's workaround pass rewrites it to rank 4 "
                           "before the runtime calls ttnn::sampling)")
    _check(values, indices, k, p, temp, name)
    n, wt = values.shape[2], values.shape[3] // TILE
    cores = num_cores_to_corerangeset(n, ctx.grid, row_wise=True)
    t = values.tile_bytes
    cbs = [CB(0, "input_values", t, 4, cores), CB(2, "index", _UINT16_TILE, 4, cores),
           CB(3, "scale", _BF16_TILE, 1, cores), CB(-1, "one-tile Float16_b (ttnn 0.81.1, measured)", _BF16_TILE, 1, cores),
           CB(4, "topk_mask", t, 4, cores), CB(5, "input_transposed", t, wt, cores),
           CB(6, "index_transposed", _UINT16_TILE, wt, cores), CB(7, "values", t, 2, cores),
           CB(1, "local_values", t, 2, cores), CB(8, "output_indices", _UINT16_TILE, 2, cores),
           CB(9, "cur_max", t, 1, cores), CB(10, "cur_sum", t, 1, cores), CB(11, "rand", _BF16_TILE, 1, cores),
           CB(12, "final_indices_rm", TILE * wt * TILE * indices.element_bytes, 1, cores),
           CB(13, "output", 2 * n, 1, cores)]
    scratch = 128 + 4 * n + 2 * n
    return ProgramModel("SamplingDeviceOperation::SamplingProgramFactory", _SAMPLING_SRC, cores, cbs,
                        [f"{n} users on {n} cores, Wt {wt}", f"k/p/temp kernel scratchpads: {scratch} B per core"],
                        extra_l1_per_core=scratch, inputs=(values, indices), outputs=(result(ctx),))


@register_spec("ttnn.sampling")
def sampling_spec(ctx: CBContext) -> list[TensorSpec]:
    """``SamplingDeviceOperation::compute_output_specs``: ``[1, 1, 1, n]`` UINT32 ROW_MAJOR in the values'
    memory config (Wormhole and Blackhole; measured).

    Raises:
        CBModelError: the rank-2 form (see :func:`sampling_cb`).
    """
    values = operand(ctx, 0)
    if values.rank != 4:
        raise CBModelError(f"{ctx.op.name}: the rank-{values.rank} form is rewritten to rank 4 by tt-mlir")
    return [values.with_(shape=(1, 1, 1, values.shape[2]), layout="row_major", dtype=DataType("u32")).spec()]


register_check("ttnn.sampling", "mock", "tests/test_ops_dialect_moe.py against measurements/dialect/results_moe.jsonl",
               ("SamplingDeviceOperation",))
