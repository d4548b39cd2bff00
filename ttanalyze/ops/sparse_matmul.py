"""``ttnn.sparse_matmul``: the expert matmul of mixture-of-experts layers, skipping the (batch, expert) pairs
a sparsity mask marks empty.

Shape rule (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca ``SparseMatmulOp::verify``): A at least 4D,
B ``[1, E, K, N]``, the sparsity mask 4D with last dim ``E``; at least one input sparse; ``nnz > 0`` when set:

* B sparse: ``[A0, A1, M, K] @ [1, E, K, N] -> [A0, A1, 1, E, M, N]``;
* A sparse: ``[A0, E, M, K] @ [1, E, K, N] -> [A0, E, M, N]``;
* both: ``[1, E, M, K] @ [1, E, K, N] -> [1, E, M, N]``.

Program: tt-mlir's runtime requires the op's 1D program config and calls ``ttnn::sparse_matmul(a, b, sparsity,
MatmulMultiCoreReuseMultiCast1DProgramConfig{...}, nnz, is_input_a_sparse, is_input_b_sparse, memory_config,
dtype = nullopt, compute_config)`` (``runtime/lib/ttnn/operations/matmul/matmul.cpp`` @19c86fca).
``SparseMatmulDeviceOperation::create_output_tensors`` zero-fills the output first (``ttnn::zeros_like``: a
``UnaryDeviceOperation``), then ``SparseMatmulMultiCoreReuseMcast1DProgramFactory`` runs (:func:`sparse_matmul_cb`).
"""

from __future__ import annotations

from ..ir.attrs import ComputeKernelConfig, MatmulProgramConfig
from ..ir.model import Op
from ..layout import ceil_div
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .eltwise import unary_program
from .registry import ShapeError, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import TILE, Tensor, operand, result
from .work_split import bounding_box, num_cores_to_corerangeset

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
_MODES = {(False, True): "b", (True, False): "a", (True, True): "ab"}


def _sparse_flags(op: Op) -> tuple[bool, bool]:
    return bool(op.attrs.get("is_input_a_sparse", False)), bool(op.attrs.get("is_input_b_sparse", True))


def sparse_matmul_shape(a: tuple[int, ...], b: tuple[int, ...], a_sparse: bool, b_sparse: bool) -> tuple[int, ...]:
    """The result shape of the three modes (module docstring; tt-metal ``compute_sparse_matmul_output_shape`` gives
    the same: A's batch dims unless both are sparse, then B's unless only A is sparse, then ``[M, N]``)."""
    e, n = b[1], b[3]
    m = a[-2]
    if a_sparse and b_sparse:
        return (1, e, m, n)
    if b_sparse:
        return (a[0], a[1], 1, e, m, n)
    return (a[0], e, m, n)


@register("ttnn.sparse_matmul", "matmul", ("is_input_a_sparse", "is_input_b_sparse", "nnz", "program_config",
                                            "compute_config", "memory_config"), f"{_SRC} SparseMatmulOp::verify")
def sparse_matmul(op: Op):
    """The result shape of the op's mode (module docstring).

    Raises:
        ShapeError: ranks, ``B[0] != 1``, K or E mismatches, no sparse input, ``nnz <= 0``, or a B-sparse A of
            rank other than 4 (the 6D result rule reads A's first two dims).
    """
    a, b, sp = (tensor_shape(op, i) for i in range(3))
    nnz = op.attrs.get("nnz")
    if isinstance(nnz, int) and not isinstance(nnz, bool) and nnz <= 0:
        raise ShapeError(f"{op.name}: nnz must be greater than 0 when set")
    if len(a) < 4:
        raise ShapeError(f"{op.name}: input A must be at least a 4D tensor")
    if len(b) != 4:
        raise ShapeError(f"{op.name}: input B must be a 4D tensor [1, E, K, N]")
    if len(sp) != 4:
        raise ShapeError(f"{op.name}: the sparsity tensor must be a 4D tensor")
    a_sparse, b_sparse = _sparse_flags(op)
    if not (a_sparse or b_sparse):
        raise ShapeError(f"{op.name}: at least one of is_input_a_sparse or is_input_b_sparse must be true")
    if b[0] != 1:
        raise ShapeError(f"{op.name}: input B first dimension must be 1")
    if a[-1] != b[2]:
        raise ShapeError(f"{op.name}: input A inner dimension {a[-1]} must match input B K dimension {b[2]}")
    if sp[-1] != b[1]:
        raise ShapeError(f"{op.name}: sparsity last dimension {sp[-1]} must match the {b[1]} experts of input B")
    return [sparse_matmul_shape(a, b, a_sparse, b_sparse)]


_FACTORY_SRC = ("tt-metal ttnn/cpp/ttnn/operations/matmul/device/sparse/factory/"
                "sparse_matmul_multicore_reuse_mcast_1d_optimized.cpp @060a2d5e, sparse_matmul_device_operation.cpp "
                "@01656bf7 (measured on ttnn 0.81.1: measurements/dialect/results_moe.jsonl)")
MCAST_INPUT_BUFFERING_DEPTH = 2  # matmul_utilities.hpp: in0/in1 double-buffered when a core loops over blocks


def _batch(t: Tensor) -> int:
    """``get_batch_size``: the product of the padded dims before the last two."""
    n = 1
    for d in t.padded[:-2]:
        n *= d
    return n


def _aligned(n: int, alignment: int) -> int:
    return ceil_div(n, alignment) * alignment


def _check(a: Tensor, b: Tensor, sparsity: Tensor, a_sparse: bool, b_sparse: bool, nnz, name: str) -> int:
    """``SparseMatmulDeviceOperation::validate_on_program_cache_miss``; the batch length the sparsity covers.

    Raises:
        DeviceRejection: a row-major A or B, a non-float A or B, a tiled sparsity mask, a sparsity volume other than
            the batch length, or ``nnz`` above it.
    """
    if not a.tiled or not b.tiled:
        raise DeviceRejection(f"{name}: TT_FATAL input tensors A and B must be TILE layout (sparse_matmul_device_operation.cpp)")
    for t, what in ((a, "A"), (b, "B")):
        if t.dtype.name not in ("bf16", "f32", "bfp_bf8", "bfp_bf4"):
            raise DeviceRejection(f"{name}: TT_FATAL input tensor {what} must be a floating point type, got {t.dtype}")
    if sparsity.tiled:
        raise DeviceRejection(f"{name}: TT_FATAL sparsity tensor must be ROW_MAJOR layout (sparse_matmul_device_operation.cpp)")
    ba, bb = _batch(a), _batch(b)
    length = bb if (a_sparse and b_sparse) else ba if a_sparse else ba * bb
    volume = 1
    for d in sparsity.shape:
        volume *= d
    if volume != length:
        raise DeviceRejection(f"{name}: TT_FATAL sparsity logical_volume ({volume}) must equal batch_length ({length})")
    if isinstance(nnz, int) and nnz > length:
        raise DeviceRejection(f"{name}: TT_FATAL nnz ({nnz}) must be less than or equal to the length of all batch "
                              f"dimensions ({length})")
    return length


@register_cb("ttnn.sparse_matmul")
def sparse_matmul_cb(ctx: CBContext) -> list[ProgramModel]:
    """The output's zero fill, then ``SparseMatmulMultiCoreReuseMcast1DProgramFactory``.

    Zero fill (``ttnn::zeros_like`` of the output): :func:`~ttanalyze.ops.eltwise.unary_program` of the output.

    Sparse matmul, with the program config's ``in0_block_w``, ``out_block_h/w``, ``per_core_M/N`` (tiles),
    ``Mt = padded M / 32``, ``Kt``, ``Nt``: ``num_blocks_y = ceil(Mt / per_core_M)``, ``num_blocks_x =
    ceil(Nt / per_core_N)``, one block per core on ``num_cores_to_corerangeset(blocks, config grid, row_wise)``,
    which must be a rectangle; double buffering (x2) when ``batchA * batchB * Kt / in0_block_w > 1``; on every core
    in0 ``out_block_h * in0_block_w`` tiles of A, in1 ``out_block_w * in0_block_w`` tiles of B (tile sizes aligned to
    the DRAM alignment), one aligned sparsity page for the in1 reader (and one more on the in0 sender, core (0, 0)),
    the output ``out_block_h * out_block_w`` tiles, and the partials ``out_block_h * out_block_w`` tiles of the
    intermediate format (Float16_b with packer L1 accumulation and more than one K block, f32 with fp32
    accumulation, else the output's) unless that is the output's format (then the output's region holds both).
    Without a compute config ttnn enables fp32 accumulation for an f32 output and packer L1 accumulation otherwise
    (``create_matmul_attributes``; measured).

    Raises:
        DeviceRejection: :func:`_check`, ``Kt % in0_block_w``, more blocks than cores, a block grid that is not a
            rectangle, ``mcast_in0`` false (the factory's TT_FATALs).
        CBModelError: no 1D program config (tt-mlir's runtime asserts one), a sharded tensor, or a config grid
            larger than the device's.
    """
    op, name = ctx.op, ctx.op.name
    a, b, sparsity, out = operand(ctx, 0), operand(ctx, 1), operand(ctx, 2), result(ctx)
    pc = op.attrs.get("program_config")
    if not isinstance(pc, MatmulProgramConfig) or pc.kind != "mcast_1d":
        raise CBModelError(f"{name} without a 1D multicast program config (tt-mlir's runtime asserts one)")
    if a.sharded or b.sharded or out.sharded:
        raise CBModelError(f"{name} with a sharded tensor (not measured)")
    a_sparse, b_sparse = _sparse_flags(op)
    nnz = op.attrs.get("nnz")
    length = _check(a, b, sparsity, a_sparse, b_sparse, nnz, name)
    gx, gy = pc.grid or ctx.grid
    if gx > ctx.grid[0] or gy > ctx.grid[1]:
        raise CBModelError(f"{name}: program config grid {gx}x{gy} exceeds the device grid {ctx.grid[0]}x{ctx.grid[1]}")
    bw, bh, bwo = int(pc.get("in0_block_w")), int(pc.get("out_block_h")), int(pc.get("out_block_w"))
    pm, pn = int(pc.get("per_core_m")), int(pc.get("per_core_n"))
    if not pc.get("mcast_in0", False):
        raise DeviceRejection(f"{name}: TT_FATAL Only mcast_in0 is supported for sparse matmul")
    mt, kt, nt = a.padded[-2] // TILE, a.padded[-1] // TILE, b.padded[-1] // TILE
    if kt % bw:
        raise DeviceRejection(f"{name}: TT_FATAL Kt ({kt}) must be divisible by in0_block_w ({bw})")
    blocks = ceil_div(mt, pm) * ceil_div(nt, pn)
    if blocks > gx * gy:
        raise DeviceRejection(f"{name}: TT_FATAL Number of blocks exceeds number of cores available: {blocks} blocks > "
                              f"{gx * gy} cores")
    cores = num_cores_to_corerangeset(blocks, (gx, gy), row_wise=True)
    box = bounding_box(cores)
    if (box.end.x - box.start.x + 1) * (box.end.y - box.start.y + 1) != blocks:
        raise DeviceRejection(f"{name}: TT_FATAL num_cores_with_work ({blocks}) must be equal to "
                              "in0_mcast_receiver_num_cores: the block grid is not a rectangle")
    batch_a = 1 if (a_sparse and b_sparse) else _batch(a) // _batch(b) if a_sparse else _batch(a)
    depth = MCAST_INPUT_BUFFERING_DEPTH if batch_a * _batch(b) * (kt // bw) > 1 else 1
    cc = op.attrs.get("compute_config")
    if isinstance(cc, ComputeKernelConfig):
        fp32, l1acc = bool(cc.fp32_dest_acc_en), bool(cc.packer_l1_acc)
    else:
        fp32, l1acc = out.dtype.name == "f32", out.dtype.name != "f32"
    l1acc = l1acc and kt // bw > 1
    interm = ("f32" if fp32 else "bf16") if l1acc else ("f32" if fp32 else out.dtype.name)
    interm_tile = {"f32": 4096, "bf16": 2048}.get(interm, out.tile_bytes)
    align = a.dram_alignment
    page = _aligned(sparsity.shape[-1] * sparsity.element_bytes, sparsity.alignment)
    sender = num_cores_to_corerangeset(1, (gx, gy), row_wise=True)
    out_tiles = bh * bwo
    cbs = [CB(0, "in0", _aligned(a.tile_bytes, align), depth * bh * bw, cores),
           CB(1, "in1", _aligned(b.tile_bytes, align), depth * bwo * bw, cores),
           CB(-1, "sparsity (in0 sender)", page, 1, sender), CB(-1, "in1_sparsity", page, 1, cores),
           CB(4, "out", out.tile_bytes, out_tiles, cores)]
    if interm != out.dtype.name:
        cbs.append(CB(5, "intermed0", interm_tile, out_tiles, cores))
    nnz_note = f"nnz {nnz} of {length} (batch, expert) pairs" if isinstance(nnz, int) else f"{length} pairs, nnz read on device"
    fill = unary_program(out, out, ctx.grid)
    fill.notes.insert(0, "zeros_like of the output (SparseMatmulDeviceOperation::create_output_tensors)")
    fill.inputs, fill.outputs, fill.params = (out,), (out,), {"unary_ops": ["fill"]}
    mm = ProgramModel("SparseMatmulDeviceOperation::SparseMatmulMultiCoreReuseMcast1DProgramFactory", _FACTORY_SRC,
                      cores, cbs, [f"{_MODES[(a_sparse, b_sparse)]}-sparse: {blocks} blocks, {nnz_note}",
                                   f"partials in {interm}" + (" (the output's region)" if interm == out.dtype.name else "")],
                      inputs=(a, b), outputs=(out,),
                      params={"nnz": nnz if isinstance(nnz, int) else length, "batch_pairs": length,
                              "program_config": {"kind": pc.kind, **{k: v for k, v in pc.params.items()
                                                                     if isinstance(v, (int, bool))}}})
    return [fill, mm]


@register_spec("ttnn.sparse_matmul")
def sparse_matmul_spec(ctx: CBContext) -> list[TensorSpec]:
    """``SparseMatmulDeviceOperation::compute_output_specs``: the mode's shape, A's dtype (the runtime passes no
    dtype), TILE, the result's memory config."""
    a, b, out = operand(ctx, 0), operand(ctx, 1), result(ctx)
    a_sparse, b_sparse = _sparse_flags(ctx.op)
    return [a.with_(shape=sparse_matmul_shape(a.shape, b.shape, a_sparse, b_sparse), layout="tile", mem=out.mem).spec()]


register_check("ttnn.sparse_matmul", "mock", "tests/test_ops_dialect_moe.py against measurements/dialect/results_moe.jsonl",
               ("UnaryDeviceOperation", "SparseMatmulDeviceOperation"))
