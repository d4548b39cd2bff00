"""Matmul and linear: shape rules, the program ttnn 0.81.1 builds, and what it returns.

Shape rules
-----------
``a [..., M, K] @ b [..., K, N] -> [..., M, N]`` with ``transpose_a``/
``transpose_b`` swapping the last two dims of an operand, a rank-1 ``a``
treated as ``[1, K]`` (its M dropped from the result) and a rank-1 ``b`` as
``[K, 1]`` (N dropped), and batch dims broadcast (tt-mlir
``MatmulOp::verify``/``LinearOp::verify``, ``lib/Dialect/TTNN/IR/TTNNOps.cpp``
@19c86fca).  ``linear`` adds a bias that must broadcast to the result.

The ttnn call
-------------
tt-mlir's runtime (``runtime/lib/ttnn/operations/matmul/matmul.cpp``, newest
stored version) calls ``ttnn::matmul(a, b, transpose_a, transpose_b,
memory_config, dtype, program_config, activation, compute_kernel_config)`` and
``ttnn::linear(a, b, bias, ...)`` with the memory config and dtype of the
declared result, the IR's program config and compute config (fields the IR
leaves out keep ``WormholeComputeKernelConfig``'s defaults: ``packer_l1_acc``
and ``fp32_dest_acc_en`` false), or none of them when the IR has none.

The program
-----------
Which program factory runs and the circular buffers it allocates per core range
follow tt-metal's matmul device operation: ``ttnn/cpp/ttnn/operations/matmul/
{matmul.cpp, device/matmul_device_operation.cpp, device/config/
matmul_program_config.cpp, device/utilities/matmul_utilities.cpp,
device/factory/*program_factory*.cpp}``.  Versions read (ttnn 0.81.1 is
tt-metal d80d9482, which the store does not hold): ``matmul.cpp`` @0167725f,
``matmul_device_operation.cpp``, ``matmul_program_config.cpp`` and
``matmul_utilities.cpp`` @001cea9a plus a later ``matmul_program_config.cpp``
(store file id 54667770518, commit not given by the store), the factories at
the commits in ``ProgramModel.source`` (2D @0000d49e, 1D @00629f0f and the
later 1D versions with store ids 68312624657 and 614524732, reuse @00fca592,
multi-core and DRAM-sharded @01502698).  ttnn 0.81.1's factories are the
Metal 2.0 ports whose CBs appear as ``dataflow_buffer_allocate`` nodes in a
graph capture (the gather_in0 path still makes legacy CBs).  Every branch
was measured on the mock P150 (ttnn 0.81.1, tt-metal d80d9482): the DFB sizes
and core ranges of each program, ``program_factory_type`` and the resolved
compute config; measured instances are in ``measurements/opdiff/results.jsonl.gz``
(``benchmarks/opdiff.py``).  Where
ttnn 0.81.1 differs from the stored sources the measurement is modeled and the
difference is written at the function.

CB indices: ``c_0`` in0, ``c_1`` in1, ``c_2`` sharded in0, ``c_3`` bias,
``c_4`` output, ``c_5`` intermediate (shares ``c_4``'s buffer when both have
the same data format), ``c_6`` resharded output (DRAM-sharded), ``c_10``
transposed in0, ``c_16`` output of the plain multi-core factory.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import gcd, prod

from ..ir.attrs import ComputeKernelConfig, CoreRangeSet, DataType, MatmulProgramConfig
from ..ir.model import Op
from ..layout import ceil_div, tile_padded_shape
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set, plan_of
from .data_movement import transpose_steps
from .eltwise import BinaryCall, binary_program, broadcast, unary_program
from .registry import ShapeError, register, register_cb, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import TILE, Tensor, operand, result
from .work_split import bounding_box, corerange_to_cores, full_grid, num_cores_to_corerangeset, split_work_to_cores

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
_ATTRS = ("transpose_a", "transpose_b", "matmul_program_config", "activation", "compute_config", "dtype", "memory_config")

_TT = "tt-metal ttnn/cpp/ttnn/operations/matmul"
_SRC_2D = f"{_TT}/device/factory/matmul_multicore_reuse_mcast_2d_program_factory.cpp @0000d49e"
_SRC_1D = f"{_TT}/device/factory/matmul_multicore_reuse_mcast_1d_program_factory.cpp @00629f0f"
_SRC_REUSE = f"{_TT}/device/factory/matmul_multicore_reuse_optimized_program_factory.cpp @00fca592"
_SRC_MULTI = f"{_TT}/device/factory/matmul_multicore_program_factory.cpp @01502698"
_SRC_DRAM = f"{_TT}/device/factory/matmul_multicore_reuse_mcast_dram_sharded_program_factory.cpp @01502698"

# MCAST_INPUT_BUFFERING_DEPTH (matmul_utilities.hpp): double-buffered in0/in1 when a core loops over blocks.
_DEPTH = 2


# ---------------------------------------------------------------------------
# Shape rules
# ---------------------------------------------------------------------------


def matmul_shape(a: tuple[int, ...], b: tuple[int, ...], ta: bool, tb: bool) -> tuple[int, ...]:
    """Result shape of ``a @ b`` (see module docstring).

    Raises:
        ShapeError: inner dimensions differ or batch dims do not broadcast.
    """
    if not a or not b:
        raise ShapeError("matmul operands must have rank 1 or more")
    a2 = list(a) if len(a) > 1 else [1, a[0]]
    b2 = list(b) if len(b) > 1 else [b[0], 1]
    if ta:
        a2[-2], a2[-1] = a2[-1], a2[-2]
    if tb:
        b2[-2], b2[-1] = b2[-1], b2[-2]
    if a2[-1] != b2[-2]:
        raise ShapeError(
            f"matmul inner dimensions differ: a is {'x'.join(map(str, a))}{' (transposed)' if ta else ''}, "
            f"b is {'x'.join(map(str, b))}{' (transposed)' if tb else ''}: K {a2[-1]} != {b2[-2]}"
        )
    batch = broadcast(tuple(a2[:-2]), tuple(b2[:-2]))
    out = [*batch]
    if len(a) > 1:
        out.append(a2[-2])
    if len(b) > 1:
        out.append(b2[-1])
    return tuple(out)


@register("ttnn.matmul", "matmul", _ATTRS, f"{_SRC} MatmulOp::verify")
def matmul(op: Op):
    return [matmul_shape(tensor_shape(op, 0), tensor_shape(op, 1),
                         bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b")))]


@register("ttnn.linear", "matmul", _ATTRS, f"{_SRC} LinearOp::verify")
def linear(op: Op):
    out = matmul_shape(tensor_shape(op, 0), tensor_shape(op, 1),
                       bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b")))
    if len(op.operands) > 2 and op.operands[2].is_tensor:
        # LinearOp::verify: the result is broadcast(matmul(a, b), bias), or matmul(a, b) itself when the bias's
        # tile-padded second-to-last dim is one tile (tt-metal fuses such a bias); ttnn adds any other bias after
        # the matmul with a broadcasting ttnn::add (_post_process_bias), so the broadcast shape is what it returns.
        bias = tensor_shape(op, 2)
        try:
            full = broadcast(out, bias)
        except ShapeError:
            raise ShapeError(f"linear bias {'x'.join(map(str, bias))} does not broadcast to {'x'.join(map(str, out))}") from None
        declared = tuple(op.results[0].type.shape) if op.results and op.results[0].is_tensor else None
        fused = len(bias) > 1 and -(-bias[-2] // TILE) == 1
        return [out if fused and declared == tuple(out) else full]
    return [out]


def ttnn_output_shape(a: tuple[int, ...], b: tuple[int, ...], ta: bool, tb: bool) -> tuple[int, ...]:
    """The logical output shape ttnn computes (``compute_matmul_output_shape``, matmul_utilities.cpp @001cea9a).

    The batch dims are ``a``'s, with the leading dims of ``b`` when ``b`` has
    the higher rank; when ``a``'s batch dims are all 1 and an equal-rank ``b``
    is batched they are ``b``'s (measured: ``[1, 1, 64, 64] @ [2, 3, 64, 96]``
    gives ``[2, 3, 64, 96]``; the stored version takes only the dim before
    ``[M, K]`` from ``b``).  There is no general broadcast (ttnn refuses other
    batch mismatches, see :func:`_check_batches`).  A rank-1 ``a`` drops M, a
    rank-1 ``b`` drops N.

    Raises:
        ShapeError: ``b`` has the higher rank and a leading dim other than 1
            (ttnn: "front dimensions need to be 1").
    """
    sa, sb = list(a), list(b)
    if ta and len(sa) >= 2:
        sa[-2], sa[-1] = sa[-1], sa[-2]
    if tb and len(sb) >= 2:
        sb[-2], sb[-1] = sb[-1], sb[-2]
    if len(sb) == 1:
        sb = [sb[0], 1]  # bound_matmul reshapes a rank-1 b to [K, 1]
    ra, rb = len(sa), len(sb)
    out_rank = max(ra, rb) - (ra == 1 or len(b) == 1)
    diff = max(0, out_rank - ra)
    out = list(sb if rb > ra else sa)
    for i in range(diff):
        if sb[i] != 1:
            raise ShapeError("ttnn matmul: when b has the higher rank its front dimensions must be 1")
        out[i] = sb[i]
    for i in range(ra - 1):
        out[diff + i] = sa[i]
    out[-1] = sb[-1]
    if ra == 1 and len(out) > 1:
        del out[-2]
    if len(b) == 1:
        out = out[:-1]
    if ra >= 3 and rb == ra and all(d == 1 for d in sa[:-2]) and any(d > 1 for d in sb[:-2]):
        out[:ra - 2] = sb[:ra - 2]
    return tuple(out)


# ---------------------------------------------------------------------------
# The operands as ttnn sees them
# ---------------------------------------------------------------------------


def _operand(ctx: CBContext, i: int | None, transpose: bool = False) -> Tensor:
    """Operand ``i`` (or the result when ``i`` is None), its last two dims swapped when ``transpose``.

    Raises:
        CBModelError: see :func:`~ttanalyze.ops.tensors.tensor_of`.
        DeviceRejection: a row-major tensor (ttnn matmul needs TILE inputs and outputs).
    """
    t = result(ctx) if i is None else operand(ctx, i)
    if not t.tiled:
        what = "result" if i is None else f"operand #{i}"
        raise DeviceRejection(f"{ctx.op.name} {what} is row-major: ttnn matmul needs TILE inputs and outputs")
    if transpose:
        shape = (*t.shape[:-2], t.shape[-1], t.shape[-2]) if t.rank >= 2 else t.shape
        t = t.with_(shape=shape, padded=(*t.padded[:-2], t.padded[-1], t.padded[-2]))
    return t


def _batch(t: Tensor) -> int:
    """``get_batch_size``: product of the padded dims before the last two."""
    return prod(t.padded[:-2]) if len(t.padded) > 2 else 1


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class _Compute:
    """The resolved compute kernel config fields that size CBs."""

    fp32_dest_acc_en: bool
    packer_l1_acc: bool


def _compute(cfg: ComputeKernelConfig | None, out_dtype: DataType) -> _Compute:
    """``create_matmul_attributes`` / ``init_device_compute_kernel_config`` (matmul_device_operation.cpp @001cea9a).

    Without a config: ``fp32_dest_acc_en`` when the output is f32, ``packer_l1_acc``
    otherwise.  With one, its fields; the IR's missing fields keep the struct
    defaults (false): the IR's ``<hifi4, fp32_dest_acc_en = true>`` resolves to
    ``packer_l1_acc=0`` (measured on mock P150, ttnn 0.81.1).
    """
    if cfg is None:
        f32 = out_dtype.name == "f32"
        return _Compute(f32, not f32)
    return _Compute(bool(cfg.fp32_dest_acc_en), bool(cfg.packer_l1_acc))


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class _Cfg:
    """A matmul program config (``MatmulMultiCore*ProgramConfig``), in tiles.

    ``kind``: ``reuse``, ``mcast_2d``, ``mcast_1d``, ``dram_sharded`` or
    ``multicore`` (MatmulMultiCoreProgramConfig, which only auto-selection makes).
    ``grid`` is ``compute_with_storage_grid_size`` (x, y); ``auto`` tells an
    automatically chosen config from the IR's.
    """

    kind: str
    grid: tuple[int, int] = (1, 1)
    in0_block_w: int = 1
    out_subblock_h: int = 1
    out_subblock_w: int = 1
    out_block_h: int = 1
    out_block_w: int = 1
    per_core_m: int = 1
    per_core_n: int = 1
    transpose_mcast: bool = False
    fuse_batch: bool = True
    mcast_in0: bool = True
    gather_in0: bool = False
    untilize_out: bool = False
    fused_activation: str | None = None
    num_global_cb_receivers: int = 1
    auto: bool = False

    def describe(self) -> str:
        if self.kind == "multicore":
            return "MatmulMultiCoreProgramConfig"
        parts = [f"grid {self.grid[0]}x{self.grid[1]}", f"in0_block_w {self.in0_block_w}",
                 f"per_core {self.per_core_m}x{self.per_core_n}", f"out_block {self.out_block_h}x{self.out_block_w}"]
        if self.kind == "mcast_1d":
            parts.append("mcast_in0" if self.mcast_in0 else "mcast_in1")
        if self.kind in ("mcast_1d", "mcast_2d"):
            parts.append(f"fuse_batch {self.fuse_batch}")
        if self.transpose_mcast:
            parts.append("transpose_mcast")
        return f"{self.kind} ({', '.join(parts)})"


def _cfg_from_ir(pc: MatmulProgramConfig) -> _Cfg:
    """The IR's ``#ttnn.matmul_*_program_config`` as a :class:`_Cfg`.

    Missing ``out_block_h/w`` default to ``per_core_m/n`` as ttnn's constructors do.

    Raises:
        CBModelError: a parameter is missing or not an integer, or ``hop_cores``
            are given (ring gather with hop cores: not modeled).
    """
    def num(key: str, default: int | None = None) -> int:
        v = pc.get(key, default)
        if isinstance(v, bool) or not isinstance(v, int):
            raise CBModelError(f"matmul program config {pc.kind}: '{key}' is missing or not an integer")
        return v

    grid = pc.grid or (1, 1)
    act = pc.get("fused_activation")
    act_name = getattr(act, "op_type", None)
    if pc.kind == "dram_sharded":
        return _Cfg("dram_sharded", in0_block_w=num("in0_block_w"), per_core_m=num("per_core_m"),
                    per_core_n=num("per_core_n"), fused_activation=act_name)
    pm, pn = num("per_core_m"), num("per_core_n")
    hop = pc.get("hop_cores")
    if pc.kind == "mcast_1d" and hop is not None and getattr(hop, "ranges", ()):
        raise CBModelError("matmul 1D config with hop_cores (ring gather with hop cores) is not modeled")
    return _Cfg(pc.kind, tuple(grid), num("in0_block_w"), num("out_subblock_h"), num("out_subblock_w"),
                num("out_block_h", pm), num("out_block_w", pn), pm, pn,
                transpose_mcast=bool(pc.get("transpose_mcast", False)), fuse_batch=bool(pc.get("fuse_batch", True)),
                mcast_in0=bool(pc.get("mcast_in0", True)), gather_in0=bool(pc.get("gather_in0", False)),
                untilize_out=bool(pc.get("untilize_out", False)), fused_activation=act_name,
                num_global_cb_receivers=num("num_global_cb_receivers", 1))


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class _Mm:
    """Everything the config choice and the factories read about one matmul/linear.

    ``out`` is the requested output placement and dtype (the declared result);
    ``bias`` is the bias the matmul program fuses (None when ttnn adds it as a
    separate op afterwards, see :func:`_post_process_bias`); a transposed
    operand is read with its last two dims swapped.  ``max_l1_space`` is
    ``get_max_l1_space`` when the config is chosen: before the output is
    allocated (``ctx.max_l1_space_before_outputs``).
    """

    a: Tensor
    b: Tensor
    bias: Tensor | None
    out: Tensor
    ta: bool
    compute: _Compute
    device_grid: tuple[int, int]
    max_l1_space: int
    user_run_batched: bool
    dram_banks: int

    @property
    def bias_tile(self) -> int:
        return self.bias.tile_bytes if self.bias is not None else 0

    @property
    def bcast_batch(self) -> bool:
        """``get_broadcast_batch``: ``a`` batched, ``b`` not (b is reused for every batch)."""
        return _batch(self.a) > 1 and _batch(self.b) == 1

    def mt(self, fuse_batch: bool) -> int:
        """``get_M_dim`` in tiles."""
        return (_batch(self.a) if fuse_batch else 1) * (self.a.padded[-2] // TILE)

    @property
    def kt(self) -> int:
        return self.a.padded[-1] // TILE

    @property
    def nt(self) -> int:
        return self.b.padded[-1] // TILE


def _operands(ctx: CBContext) -> tuple[_Mm, _Cfg | None]:
    """Read the op: operands, result, compute config, and the IR's program config (or None); once per
    context (:func:`~ttanalyze.ops.cb.plan_of`: the CB and output-spec models share it).

    Raises:
        DeviceRejection: operands ttnn's matmul cannot take (see :func:`_operand`), or
            ``a`` and ``b`` of different K in tiles.
    """
    return plan_of(ctx, _read_operands)


def _read_operands(ctx: CBContext) -> tuple[_Mm, _Cfg | None]:
    op = ctx.op
    ta, tb = bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b"))
    a, b = _operand(ctx, 0, ta), _operand(ctx, 1, tb)
    if len(op.operands) >= 2 and len(op.operands[1].type.shape) == 1:
        b = b.with_(shape=(b.shape[-1], 1), padded=(b.padded[-1], TILE))  # bound_matmul: [K] -> [K, 1]
    out = _operand(ctx, None)
    bias = _operand(ctx, 2) if op.name == "ttnn.linear" and len(op.operands) > 2 and op.operands[2].is_tensor else None
    if a.padded[-1] != b.padded[-2]:
        raise DeviceRejection(f"K in tiles differs: a has {a.padded[-1] // TILE}, b has {b.padded[-2] // TILE} (ttnn refuses)")
    cc = op.attrs.get("compute_config")
    compute = _compute(cc if isinstance(cc, ComputeKernelConfig) else None, out.dtype)
    # The auto config is chosen before the output exists: add back its L1 (ctx.max_l1_space counts it as live).
    free = ctx.max_l1_space_before_outputs
    b_logical = op.operands[1].type.shape
    batched_b = len(b_logical) > 2 and any(d > 1 for d in b_logical[:-2])
    mm = _Mm(a, b, bias, out, ta, compute, ctx.grid, free, batched_b, ctx.arch.num_dram_channels)
    pc = op.attrs.get("matmul_program_config")
    cfg = _cfg_from_ir(pc) if isinstance(pc, MatmulProgramConfig) else None
    return mm, cfg


@dataclass(frozen=True)
class MatmulShape:
    """What a program-config search needs to know of a matmul, in tiles.

    ``mt`` (with the batch folded in when ``fuse_batch``), ``kt``, ``nt``; the
    tile bytes of a, b, the output and (0 without) the fused bias; whether
    fp32 accumulation halves the destination registers; ``batch`` of a.
    """

    mt: int
    kt: int
    nt: int
    batch: int
    tile_a: int
    tile_b: int
    tile_out: int
    tile_bias: int
    fp32_dest_acc: bool


def matmul_shape_of(ctx: CBContext, fuse_batch: bool = True) -> MatmulShape:
    """The :class:`MatmulShape` of ``ctx.op`` (see :func:`_operands`).

    Raises:
        CBModelError / DeviceRejection: as :func:`matmul_program`.
    """
    mm, cfg = _operands(ctx)
    mm = _fused_bias_view(mm, cfg)
    return MatmulShape(mm.mt(fuse_batch), mm.kt, mm.nt, _batch(mm.a), mm.a.tile_bytes, mm.b.tile_bytes,
                       mm.out.tile_bytes, mm.bias_tile, mm.compute.fp32_dest_acc_en)


def _post_process_bias(mm: _Mm, cfg: _Cfg | None) -> bool:
    """Whether ttnn adds the bias with a separate ``ttnn::add`` after the matmul program.

    ``get_post_process_bias`` (``ttnn/cpp/ttnn/operations/matmul/matmul.cpp``
    @0167725f): with the multi-core config; without a config when the output is
    not in DRAM, or when ``a`` is interleaved and not everything is DRAM
    interleaved.  ttnn 0.81.1 also post-processes (measured: no bias DFB in the
    matmul program, a BinaryNg add program after it) a bias whose padded rows
    are more than one tile row (``[64, N]``, ``[2, 1, N]``; a ``[1, N]``,
    ``[N]`` or ``[1, 1, N]`` bias is fused) and the bias of a
    MatmulMultiCoreReuseProgramConfig, whose factory has no bias CB.  A
    ``linear`` whose ``b`` is batched (``user_run_batched``) also post-processes
    its bias (measured: 20 of 20 such instances that ran, whatever the config;
    the stored ``LinearOperation::invoke`` refuses them instead).
    """
    if mm.bias is None:
        return False
    if prod(mm.bias.padded[:-1]) != TILE or mm.user_run_batched:
        return True
    if cfg is not None:
        return cfg.kind in ("multicore", "reuse")
    if mm.out.buffer_type != "dram":
        return True
    if not mm.a.sharded:
        all_dram_il = (mm.a.memory_layout == mm.b.memory_layout == mm.out.memory_layout == "interleaved" and mm.a.buffer_type == mm.b.buffer_type == "dram")
        return not all_dram_il
    return False


# ---------------------------------------------------------------------------
# Automatic program config (no config in the IR)
# ---------------------------------------------------------------------------

# SUBBLOCK_HW_CHOICES of matmul_program_config.cpp, as (first, second) pairs.
_SUBBLOCK_CHOICES = ((4, 2), (2, 4), (8, 1), (1, 8), (7, 1), (1, 7), (3, 2), (2, 3), (6, 1), (1, 6), (5, 1), (1, 5),
                     (2, 2), (4, 1), (1, 4), (3, 1), (1, 3), (2, 1), (1, 2), (1, 1))


def _subblock_params(m: int, n: int, h_eq_m: bool, w_eq_n: bool, fp32: bool) -> tuple[int, int]:
    """``bmm_op_utils::get_matmul_subblock_params`` (matmul_program_config.cpp): the first (h, w) dividing the block."""
    for h, w in _SUBBLOCK_CHOICES:
        if fp32 and h * w > 4:
            continue
        if w_eq_n and (w != n or h != 1):
            continue
        if h_eq_m and (h != m or w != 1):
            continue
        if m % h == 0 and n % w == 0:
            return h, w
    return 1, 1


def _estimated_cbs(mm: _Mm, pm: int, pn: int, bw: int) -> int:
    """``get_estimated_size_of_cbs`` (matmul_utilities.cpp @001cea9a), bytes per core.

    ``2*pm*bw`` tiles of a + ``2*pn*bw`` tiles of b + ``pm*pn`` output tiles
    (estimated at a's tile size) + ``pm*pn`` intermediate tiles + ``pn`` bias
    tiles + the sharded-a block ``pm * shard width`` + the transposed-a buffer.
    The intermediate tile size is ``estimate_interm_tile_size``: f32 (4096) with
    ``fp32_dest_acc_en``, else the larger of bf16 (2048) and the output tile.
    """
    interm = 4096 if mm.compute.fp32_dest_acc_en else max(2048, mm.out.tile_bytes)
    in2 = pm * mm.a.shard.tile_shape[1] * mm.a.tile_bytes if mm.a.sharded else 0
    in0 = pm * bw * _DEPTH * mm.a.tile_bytes
    size = in0 + pn * bw * _DEPTH * mm.b.tile_bytes + pm * pn * mm.a.tile_bytes + pm * pn * interm
    size += pn * mm.bias_tile + in2
    if mm.ta:
        size += in2 if mm.a.sharded else in0
    return size


def _per_core_factor(mm: _Mm, bw: int) -> int:
    """``get_per_core_factor``: the largest of 16, 8, 4, 2 whose square blocks fit ``max_l1_space``, else 1."""
    f = 16
    while f > 1:
        if _estimated_cbs(mm, f, f, bw) < mm.max_l1_space:
            return f
        f //= 2
    return 1


def _multi_dim_factor(mm: _Mm, pm: int, pn: int, bw: int, adjust_bw: bool) -> tuple[int, int, int]:
    """``get_multi_dim_per_core_factor``: (out_block_h, out_block_w, in0_block_w) that fit ``max_l1_space``.

    The whole block when it fits; else divisors of ``pm``/``pn`` (the squarest
    pair per product), largest product first, with ``in0_block_w`` kept (or, with
    ``adjust_bw``, lowered over its divisors); ``(1, 1, 1)`` when nothing fits.
    """
    if _estimated_cbs(mm, pm, pn, bw) < mm.max_l1_space:
        return pm, pn, bw
    ms = [pm, 1] + [f for f in range(pm // 2, 1, -1) if pm % f == 0]
    ns = [pn, 1] + [f for f in range(pn // 2, 1, -1) if pn % f == 0]
    factors: dict[int, tuple[int, int]] = {}
    for fm in ms:
        for fn in ns:
            ratio = max(fm, fn) / min(fm, fn)
            prev = factors.get(fm * fn)
            if prev is None or not max(prev) / min(prev) < ratio:
                factors[fm * fn] = (fm, fn)
    order = [factors[k] for k in sorted(factors, reverse=True)]
    ks = [k for k in range(bw, (0 if adjust_bw else bw - 1), -1) if bw % k == 0]
    if adjust_bw:
        for fm, fn in order:
            for k in ks:
                if _estimated_cbs(mm, fm, fn, k) < mm.max_l1_space:
                    return fm, fn, k
    else:
        for k in ks:
            for fm, fn in order:
                if _estimated_cbs(mm, fm, fn, k) < mm.max_l1_space:
                    return fm, fn, k
    return 1, 1, 1


def _is_narrow(height: int, width: int, all_dram: bool) -> bool:
    """``is_narrow_shape``: aspect ratio above 8, or (all in DRAM) one side within a tile."""
    ratio = height // width if height > width else width // height
    if ratio > 8:
        return True
    return all_dram and (height <= TILE or width <= TILE)


def _mcast_1d_config(mm: _Mm, fuse_batch: bool, mcast_in0: bool, grid: tuple[int, int],
                     user_shard: tuple[CoreRangeSet, tuple[int, int]] | None = None) -> _Cfg:
    """``get_mcast_1d_config`` (matmul_program_config.cpp).

    mcast_in0: ``per_core_M = M``, ``per_core_N = ceil(ceil(N / cores) / 32)``
    (elements); mcast_in1: ``per_core_M = ceil(ceil(M / cores) / 32)``,
    ``per_core_N = N``; a BLOCK_SHARDED output on a 1D grid gives both from its
    shard shape and the grid from its bounding box.  ``in0_block_w`` is 2 when
    Kt is even, else 1; the out block from :func:`_multi_dim_factor`.
    """
    m = mm.mt(fuse_batch) * TILE
    n = mm.nt * TILE
    if user_shard is not None:
        crs, (sh, sw) = user_shard
        pm, pn = sh // TILE, sw // TILE
        grid = _bbox_size(crs)
    elif mcast_in0:
        pm = m // TILE
        pn = ceil_div(ceil_div(n, grid[0] * grid[1]), TILE)
    else:
        pm = ceil_div(ceil_div(m, grid[0] * grid[1]), TILE)
        pn = n // TILE
    bw = 2 if mm.kt % 2 == 0 else 1
    bh, bwid, _ = _multi_dim_factor(mm, pm, pn, bw, False)
    sh, sw = _subblock_params(bh, bwid, False, False, mm.compute.fp32_dest_acc_en)
    return _Cfg("mcast_1d", grid, bw, sh, sw, bh, bwid, pm, pn, fuse_batch=fuse_batch, mcast_in0=mcast_in0, auto=True)


def _bbox_size(crs: CoreRangeSet) -> tuple[int, int]:
    """(x, y) size of the bounding box of ``crs``."""
    box = bounding_box(crs)
    return box.end.x - box.start.x + 1, box.end.y - box.start.y + 1


def _simple_config(mm: _Mm) -> _Cfg:
    """``create_simple_matmul_program_config``: ``a`` interleaved, no user grid (matmul_program_config.cpp).

    Square blocks of :func:`_per_core_factor` tiles with ``in0_block_w = 2``
    decide a provisional block grid; then 1D mcast of in0 for wide narrow
    shapes (or a WIDTH_SHARDED / 1-row BLOCK_SHARDED output), 1D mcast of in1
    for tall narrow ones (or ``a`` unbatched and ``b`` batched, or a
    HEIGHT_SHARDED / 1-column BLOCK_SHARDED output), else 2D mcast over the
    device grid, else the plain multi-core factory.  ttnn 0.81.1 already has
    the later stored version's rule that an all-DRAM-interleaved matmul does
    not take 1D from a 1-row/1-column provisional grid (measured: the default
    ``[128, 3072] @ [3072, 768]`` linear runs 2D on 8x4 cores), but not its L1
    safety margins or ``tile_pack_row_major``; and its 2D config outside the
    all-DRAM case clamps the square block to ``Mt`` x ``Nt`` (measured: ``[256,
    512] @ [512, 384]`` into a BLOCK_SHARDED output runs one 8x12-tile block on
    one core).
    """
    gx, gy = mm.device_grid
    mt, kt, nt = mm.mt(False), mm.kt, mm.nt
    out_sharded = mm.out.sharded
    all_il = mm.a.memory_layout == mm.out.memory_layout == mm.b.memory_layout == "interleaved"
    all_dram = mm.a.buffer_type == mm.b.buffer_type == mm.out.buffer_type == "dram"
    all_dram_il = all_dram and all_il
    narrow = _is_narrow(mm.a.padded[-2], mm.b.padded[-1], all_dram)
    is_wide = is_tall = False
    if all_il and narrow:
        is_wide = mm.b.padded[-1] > mm.a.padded[-2]
        is_tall = not is_wide
    bw = 2
    pm = pn = _per_core_factor(mm, bw)
    nby, nbx = (mt - 1) // pm + 1, (nt - 1) // pn + 1
    if (out_sharded or nby > 1 or nbx > 1) and kt % bw != 0:
        bw = 1
    if not (all_dram_il or (nbx * nby <= gx * gy and kt % bw == 0)):
        return _Cfg("multicore", auto=True)
    cy, cx = (0, 0)
    if not (nby == 1 and nbx == 1) and nby <= gy and nbx <= gx:
        cy, cx = nby, nbx
    col_1d = row_1d = False
    shard = None
    if out_sharded and mm.out.memory_layout == "block_sharded" and mm.out.shard is not None:
        w, h = _bbox_size(mm.out.shard.grid)
        single = w == 1 and h == 1
        col_1d, row_1d = (not single and w == 1), (not single and h == 1)
        if (col_1d or row_1d) and _batch(mm.b) > 1:
            raise DeviceRejection("ttnn refuses a BLOCK_SHARDED output on a 1D grid when b is batched (issue #32306)")
        shard = (mm.out.shard.grid, mm.out.shard.shape)
    a_bcast = all_il and _batch(mm.a) == 1 and _batch(mm.b) > 1
    in0_1d = (is_wide and not a_bcast) or (cy == 0 and out_sharded and (mm.out.memory_layout == "width_sharded" or row_1d))
    in1_1d = is_tall or a_bcast or (cy == 0 and out_sharded and (mm.out.memory_layout == "height_sharded" or col_1d))
    use_2d = all_dram_il or (cy == 0 and out_sharded and mm.out.memory_layout == "block_sharded" and not col_1d and not row_1d)
    b_unbatched = _batch(mm.b) == 1
    if (cy == 1 and not all_dram_il and not a_bcast) or in0_1d:
        user = shard if row_1d else None
        return _mcast_1d_config(mm, user is not None and b_unbatched, True, (gx, gy), user)
    if (cx == 1 and not all_dram_il) or in1_1d:
        user = shard if col_1d else None
        return _mcast_1d_config(mm, user is not None and b_unbatched, False, (gx, gy), user)
    if (cy > 0 and nbx <= gx and nby <= gy) or use_2d:
        pm, pn = min(pm, mt), min(pn, nt)
        bh, bwid = pm, pn
        if all_dram_il:
            bw = (kt // gx if kt % gx == 0 else 1)
            pm, pn = ceil_div(mt, gy), ceil_div(nt, gx)
            bh, bwid, bw = _multi_dim_factor(mm, pm, pn, bw, True)
        sh, sw = _subblock_params(bh, bwid, False, False, mm.compute.fp32_dest_acc_en)
        return _Cfg("mcast_2d", (gx, gy), bw, sh, sw, bh, bwid, pm, pn, fuse_batch=False, auto=True)
    return _Cfg("multicore", auto=True)


def _sharded_config(mm: _Mm) -> _Cfg:
    """``get_matmul_program_config``: ``a`` sharded, no user grid (matmul_program_config.cpp).

    ``ttnn.matmul`` with a batched ``b`` runs "batched" (``user_run_batched``):
    MatmulMultiCoreReuseProgramConfig over ``a``'s shard grid, ``per_core_M`` =
    shard height, ``per_core_N = N``, ``in0_block_w`` = shard width.  Otherwise
    (``b`` must be interleaved) a WIDTH/HEIGHT_SHARDED ``a`` gives 1D mcast of
    in0/in1, a BLOCK_SHARDED ``a`` on a 2D grid gives 2D mcast (COL_MAJOR shards
    transpose it), and anything else goes through :func:`_matmul_config`.  The
    stored version takes the 1D branch only for more than one shard core;
    ttnn 0.81.1 takes it for a single core too (measured: a HEIGHT_SHARDED
    ``[32, 256]`` on one core runs mcast_in1 with ``in0_block_w = Kt`` on that core).

    Raises:
        DeviceRejection: configurations ttnn refuses (width-sharded ``a`` in the
            batched path, sharded ``b`` in the mcast paths, grids that do not
            match the shards).
    """
    a, b = mm.a, mm.b
    sh_t, sw_t = a.shard.tile_shape
    grid = _bbox_size(a.shard.grid)
    mt, kt, nt = mm.mt(True), mm.kt, mm.nt
    fp32 = mm.compute.fp32_dest_acc_en
    if mm.user_run_batched:
        if a.memory_layout == "width_sharded":
            raise DeviceRejection("ttnn refuses a WIDTH_SHARDED a for a batched matmul (MatmulMultiCoreReuseProgramConfig)")
        w_eq_n = mm.out.sharded
        shp = _subblock_params(sh_t, nt, False, w_eq_n, fp32)
        if mm.bcast_batch:
            raise DeviceRejection("ttnn refuses batch broadcasting with MatmulMultiCoreReuseProgramConfig")
        return _Cfg("reuse", grid, sw_t, shp[0], shp[1], sh_t, nt, sh_t, nt, auto=True)
    if b.memory_layout != "interleaved":
        raise CBModelError("ttnn's sharded-a matmul configs need an interleaved b")
    w_eq_n = mm.out.sharded
    if a.memory_layout in ("width_sharded", "height_sharded"):
        if a.memory_layout == "width_sharded":
            mc0, pm, pn, bw = True, mt, ceil_div(nt, a.shard.grid.num_cores), gcd(sw_t, kt)
        else:
            mc0, pm, pn, bw = False, sh_t, nt, kt
        bh, bwid, _ = _multi_dim_factor(mm, pm, pn, bw, False)
        shp = _subblock_params(bh, bwid, False, w_eq_n, fp32)
        return _Cfg("mcast_1d", grid, bw, shp[0], shp[1], bh, bwid, pm, pn, fuse_batch=True, mcast_in0=mc0, auto=True)
    if a.memory_layout == "block_sharded" and grid[0] > 1 and grid[1] > 1:
        vx, vy = grid
        x_match = vx == kt // sw_t
        y_match = vy == mt // sh_t
        if not (y_match or vy == ceil_div(mt, sh_t)) or not (x_match or vx == ceil_div(kt, sw_t)):
            raise DeviceRejection("ttnn refuses: a's block shard grid does not match M and K")
        pm, pn = ceil_div(mt, vy), ceil_div(nt, vx)
        bw = gcd(sw_t, kt) if x_match else 1
        bh, bwid, _ = _multi_dim_factor(mm, pm, pn, bw, False)
        shp = _subblock_params(bh, bwid, False, w_eq_n, fp32)
        return _Cfg("mcast_2d", grid, bw, shp[0], shp[1], bh, bwid, pm, pn, auto=True)
    return _matmul_config(mm)


def _matmul_config(mm: _Mm) -> _Cfg:
    """``create_matmul_program_config`` for a sharded ``a`` the cases above do not take (matmul_program_config.cpp).

    Only a BLOCK_SHARDED ``a`` on one row or column of cores gets here (ttnn
    0.81.1 sends every WIDTH/HEIGHT_SHARDED ``a`` down the 1D branch, so the
    source's 1D systolic fallback is never reached).  A batched ``b`` (a
    ``linear``): MatmulMultiCoreReuseProgramConfig over the device grid
    (``per_core_M`` = a's shard height, ``per_core_N`` = b's logical width in
    whole tiles, ``in0_block_w`` = shard width); else 2D mcast over the device
    grid, ``per_core_M`` = shard height, ``per_core_N = Nt * shard width / Kt``,
    ``in0_block_w = gcd(shard width, Kt)``.
    """
    a, b = mm.a, mm.b
    gx, gy = mm.device_grid
    fp32 = mm.compute.fp32_dest_acc_en
    kt, nt = mm.kt, mm.nt
    if _batch(b) > 1:
        pm, pn, bw = a.shard.tile_shape[0], b.shape[-1] // TILE, a.shard.tile_shape[1]
        sh, sw = _subblock_params_simple(pm, pn, fp32)
        return _Cfg("reuse", (gx, gy), bw, sh, sw, pm, pn, pm, pn, auto=True)
    sh_t, sw_t = a.shard.tile_shape
    pm = sh_t
    pn = max(nt * sw_t // kt, 1)
    bw = gcd(sw_t, kt)
    bh, bwid, _ = _multi_dim_factor(mm, pm, pn, bw, False)
    sh, sw = _subblock_params_simple(bh, bwid, fp32)
    return _Cfg("mcast_2d", (gx, gy), bw, sh if sw == pn else 1, sw, bh, bwid, pm, pn, auto=True)


def _subblock_params_simple(m: int, n: int, fp32: bool) -> tuple[int, int]:
    """``get_subblock_sizes``: (h, w) reading each choice as (w, h) (matmul_program_config.cpp)."""
    for w, h in _SUBBLOCK_CHOICES:
        if h * w <= 4 or not fp32:
            if m % h == 0 and n % w == 0:
                return h, w
    raise DeviceRejection("ttnn: unable to find subblock sizes")


def _auto_config(mm: _Mm) -> _Cfg:
    """``generate_matmul_program_config`` without a user grid (tt-mlir never passes one)."""
    if not mm.a.sharded:
        return _simple_config(mm)
    return _sharded_config(mm)


def program_config(ctx: CBContext) -> _Cfg:
    """The program config ttnn 0.81.1 runs ``ctx.op`` with: the IR's, or the automatic choice.

    Raises:
        CBModelError: see :func:`_operands` and the config functions.
    """
    mm, cfg = _operands(ctx)
    return cfg if cfg is not None else _auto_config(_fused_bias_view(mm, None))


def _fused_bias_view(mm: _Mm, cfg: _Cfg | None) -> _Mm:
    """``mm`` with the bias dropped when ttnn adds it after the program (:func:`_post_process_bias`)."""
    return replace(mm, bias=None) if _post_process_bias(mm, cfg) else mm


# ---------------------------------------------------------------------------
# Program factories
# ---------------------------------------------------------------------------


def _interm_format(mm: _Mm, l1acc_en: bool) -> DataType:
    """The intermediate CB's data format: packer L1 accumulation packs f32 or bf16, else f32 or the output's."""
    fp32 = mm.compute.fp32_dest_acc_en
    if l1acc_en:
        return DataType("f32" if fp32 else "bf16")
    return DataType("f32") if fp32 else mm.out.dtype


def _out_and_interm(mm: _Mm, out_tiles: int, interm_tiles: int, cores: CoreRangeSet, interm_fmt: DataType,
                    separate: bool, out_sharded: bool) -> list[CB]:
    """c_4 output (backed by a sharded output's buffer) and c_5 intermediate, shared when they can be."""
    cbs = [CB(4, "out", mm.out.tile_bytes, out_tiles, cores, out_sharded)]
    if separate:
        cbs.append(CB(5, "interm", interm_fmt.tile_bytes(), interm_tiles, cores))
    return cbs


def _notes(cfg: _Cfg, detail: str, l1acc: bool, interm_fmt: DataType) -> list[str]:
    """A factory's notes: its config (and whether ttnn chose it), ``detail``, packer L1 accumulation and
    the intermediate CB's format."""
    return [f"config {cfg.describe()}{' (automatic)' if cfg.auto else ''}", detail,
            f"packer_l1_acc {'on' if l1acc else 'off'}, intermediate {interm_fmt}"]


def _cbs_1d_tail(mm: _Mm, cfg: _Cfg, cores: CoreRangeSet, interm_fmt: DataType, in0_pages: int) -> list[CB]:
    """The 1D factory's CBs after in0/in1: output and intermediate (:func:`_out_and_interm`; separate
    when their formats differ, a sharded output's ``per_core_M != out_block_h``, or ``untilize_out``
    with more than one subblock per row), the bias (``out_block_w`` tiles, backed by a sharded bias) and
    the transposed in0 (``in0_pages``) with ``transpose_a``; all on ``cores``."""
    out = mm.out
    out_tiles = cfg.per_core_m * cfg.per_core_n if out.sharded else cfg.out_block_h * cfg.out_block_w
    separate = ((out.sharded and cfg.per_core_m != cfg.out_block_h) or interm_fmt != out.dtype
                or (cfg.untilize_out and cfg.out_block_w // cfg.out_subblock_w > 1))
    cbs = _out_and_interm(mm, out_tiles, cfg.out_block_h * cfg.out_block_w, cores, interm_fmt, separate, out.sharded)
    if mm.bias is not None:
        cbs.append(CB(3, "bias", mm.bias.tile_bytes, cfg.out_block_w, cores, mm.bias.sharded))
    if mm.ta:
        cbs.append(CB(10, "in0 transposed", mm.a.tile_bytes, in0_pages, cores))
    return cbs


def _check_blocks(cfg: _Cfg) -> None:
    """ttnn's block/subblock validation (``validate_matmul_block_and_subblock_configuration``).

    Raises:
        DeviceRejection: zero sizes or blocks not multiples of each other (ttnn refuses the op).
    """
    if min(cfg.in0_block_w, cfg.per_core_m, cfg.per_core_n, cfg.out_block_h, cfg.out_block_w,
           cfg.out_subblock_h, cfg.out_subblock_w) <= 0:
        raise DeviceRejection(f"matmul config {cfg.describe()} has a zero block size (ttnn refuses)")
    if cfg.kind in ("mcast_1d", "mcast_2d"):
        if cfg.per_core_m % cfg.out_block_h or cfg.per_core_n % cfg.out_block_w:
            raise DeviceRejection(f"matmul config {cfg.describe()}: per_core not a multiple of out_block (ttnn refuses)")
        if cfg.out_block_h % cfg.out_subblock_h or cfg.out_block_w % cfg.out_subblock_w:
            raise DeviceRejection(f"matmul config {cfg.describe()}: out_block not a multiple of subblock (ttnn refuses)")


_VALIDATE = f"{_TT}/device/matmul_device_operation.cpp (store file id 54508457935; its messages are in ttnn 0.81.1's library)"


def _check_work_per_core_m(mm: _Mm, cfg: _Cfg) -> None:
    """``validate_matmul_work_distribution_and_gather_ring_topology``'s ``per_core_M <= Mt`` (2D mcast, and 1D
    mcast of in1), :data:`_VALIDATE` (matmul_device_operation.cpp:853 in ttnn 0.81.1, measured).

    Raises:
        DeviceRejection: ``per_core_M`` above ``Mt`` (with the batch folded in when ``fuse_batch``).
    """
    mt = mm.mt(cfg.fuse_batch)
    if cfg.per_core_m > mt:
        raise DeviceRejection(f"{_cfg_name(cfg)}: per_core_M ({cfg.per_core_m}) exceeds Mt ({mt}). Each core would "
                              "compute more output row tiles than the tensor has (TT_FATAL per_core_M <= Mt)")


def _check_fuse_batch_preamble(mm: _Mm, cfg: _Cfg) -> None:
    """``validate_matmul_mcast_fuse_batch_preamble`` (2D and 1D mcast), :data:`_VALIDATE`: with ``fuse_batch``, ``b``
    has no batch (matmul_device_operation.cpp:2447 in ttnn 0.81.1, measured), and with ``transpose_a`` too, a
    batched ``a`` needs one tile row per batch (:2458, measured).

    Raises:
        DeviceRejection: a batched ``b`` with ``fuse_batch``; ``transpose_a`` with ``fuse_batch``, a batch above 1
            and more than one M tile per batch.
    """
    batch, m_per_batch = _batch(mm.a), mm.a.padded[-2] // TILE
    if cfg.fuse_batch and _batch(mm.b) != 1:
        # measured: g1/ttnn.matmul/100165 (1D config, fuse_batch, b [2, 32, 96]; matmul_device_operation.cpp:2447)
        raise DeviceRejection(f"{_cfg_name(cfg)}: Matmul with fused batch requires input tensors of shapes "
                              "BCMK*11KN=BCMN or equivalent (TT_FATAL get_batch_size(b_shape_padded) == 1)")
    if cfg.fuse_batch and mm.ta and batch != 1 and m_per_batch != 1:
        raise DeviceRejection(f"{_cfg_name(cfg)}: transpose_a with fuse_batch is not supported when batch dimensions "
                              f"exist and M_per_batch > 1 (batch_size={batch}, M_per_batch={m_per_batch}) "
                              "(TT_FATAL batch_size_a == 1 || M_per_batch == 1)")


def _check_sharded_a_1d(mm: _Mm, cfg: _Cfg) -> None:
    """``validate_matmul_mcast1d_config`` for a sharded ``a`` (not gather_in0), :data:`_VALIDATE`.

    The shard shape is ``a``'s own (untransposed) shard; M and K are those of
    ``a`` as multiplied (transposed with ``transpose_a``).  mcast of in0: a
    WIDTH_SHARDED ``a`` with ``M == per_core_M == shard height`` and
    ``in0_block_w`` dividing K and the shard width; mcast of in1: a
    HEIGHT_SHARDED ``a`` with ``ceil(M / per_core_M)`` within its shard cores,
    ``per_core_M ==`` shard height, ``in0_block_w`` dividing K and ``K ==``
    shard width (all in tiles).  Measured on ttnn 0.81.1: matmul_device_operation.cpp:2282
    (per_core_M against the shard height) and :2397 (K against the shard width)
    refuse transposed sharded operands.

    Raises:
        DeviceRejection: one of these conditions fails (tt-metal's message).
    """
    a = mm.a
    if not a.sharded or a.shard is None:
        return
    name = _cfg_name(cfg)
    if not cfg.fuse_batch:
        raise DeviceRejection(f"{name}: fuse_batch must be enabled when input A is sharded")
    m, k = mm.mt(True), mm.kt
    sh, sw = a.shard.shape[0] // TILE, a.shard.shape[1] // TILE
    pm, bw = cfg.per_core_m, cfg.in0_block_w
    if cfg.mcast_in0:
        if a.memory_layout != "width_sharded":
            raise DeviceRejection(f"{name}: input A must be WIDTH_SHARDED when mcast_in0 or gather_in0 is set, "
                                  f"got: {a.memory_layout.upper()}")
        if m != pm:
            raise DeviceRejection(f"{name}: M ({m}) must equal per_core_M ({pm})")
        if pm != sh:
            raise DeviceRejection(f"{name}: per_core_M ({pm}) must equal shard_shape[0] ({a.shard.shape[0]}) / "
                                  f"in0_tile height ({TILE})")
        if k % bw:
            raise DeviceRejection(f"{name}: K ({k}) must be divisible by in0_block_w ({bw})")
        if sw % bw:
            raise DeviceRejection(f"{name}: shard_shape[1] ({a.shard.shape[1]}) / in0_tile width ({TILE}) must be "
                                  f"divisible by in0_block_w ({bw})")
        return
    if a.memory_layout != "height_sharded":
        raise DeviceRejection(f"{name}: input A must be HEIGHT_SHARDED, got: {a.memory_layout.upper()}")
    if ceil_div(m, pm) > a.shard.grid.num_cores:
        raise DeviceRejection(f"{name}: number of M blocks ceil(M/per_core_M)={ceil_div(m, pm)} must not exceed input "
                              f"A shard grid cores ({a.shard.grid.num_cores})")
    if pm != sh:
        raise DeviceRejection(f"{name}: per_core_M ({pm}) must equal shard_shape[0] ({a.shard.shape[0]}) / "
                              f"in0_tile height ({TILE})")
    if k % bw:
        raise DeviceRejection(f"{name}: K ({k}) must be divisible by in0_block_w ({bw})")
    if k != sw:
        raise DeviceRejection(f"{name}: K ({k}) must equal shard_shape[1] ({a.shard.shape[1]}) / in0_tile width ({TILE})")


def _dest_reg_count(ctx: CBContext, mm: _Mm) -> int:
    """``ttnn::get_dest_reg_count`` (compute_kernel_config.cpp, store file id 27338288662) for 32x32 output tiles:
    16 tiles with ``dst_full_sync_en``, else 8, halved with ``fp32_dest_acc_en`` (the resolved config's:
    :func:`_compute`)."""
    cc = ctx.op.attrs.get("compute_config")
    full = bool(getattr(cc, "dst_full_sync_en", None)) if isinstance(cc, ComputeKernelConfig) else False
    count = 16 if full else 8
    return count // 2 if mm.compute.fp32_dest_acc_en else count


def _check_ttnn_validation(ctx: CBContext, mm: _Mm, cfg: _Cfg) -> None:
    """Checks of ``bound_matmul`` and ``MatmulDeviceOperation``'s validation that the factories do not repeat.

    * ``bound_matmul`` (matmul.cpp, store file id 1003329183; ttnn 0.81.1 matmul.cpp:243, measured): an
      ``activation`` with a sharded ``a`` or ``b`` is refused ("Sharded matmul run with ... activation: this
      should be placed in the program config's fused_activation field").
    * :data:`_VALIDATE`, for a config the IR gives (ttnn's own configs satisfy them by construction):
      ``out_subblock_h * out_subblock_w`` within the destination registers (:func:`_dest_reg_count`; ttnn
      0.81.1 matmul_device_operation.cpp:632); with a sharded output, ``out_subblock_w == per_core_N or
      out_subblock_h == 1`` (reuse, 2D and 1D mcast; :1527) and, 2D and 1D mcast, ``out_block_w == per_core_N
      or out_block_h == 1`` (``validate_output_subblock_block_divides_per_core_n``); for the 1D mcast config (not gather_in0)
      ``ceil(Mt / per_core_M) * ceil(Nt / per_core_N)`` blocks within the grid's cores (:826) and one block
      row with ``mcast_in0``.
    * ``check_output_shard_grid_within_extent`` (every config, automatic ones too; ttnn 0.81.1
      matmul_device_operation.cpp:754, measured): an L1-sharded output's shard grid inside ``(0, 0)`` ..
      the config grid (2D and 1D mcast; the device grid for reuse and gather_in0).
    * The 2D mcast factory (matmul_utilities.hpp:46 in ttnn 0.81.1, store file id 54506573181): a
      block-sharded output with ``B > 1`` (``fuse_batch`` off and a batched ``a``), for a config the IR gives
      (g1/ttnn.matmul/100122, batched ``a`` into a block-sharded output with ttnn's own 2D config, ran).

    Raises:
        DeviceRejection: the first of these checks that fails (tt-metal's message).
    """
    a, b, out = mm.a, mm.b, mm.out
    activation = ctx.op.attrs.get("activation")
    if activation and (a.sharded or b.sharded):
        raise DeviceRejection(f"Sharded matmul run with {str(activation).upper()} activation: this should be placed in "
                              "the program config's fused_activation field (TT_FATAL matmul.cpp "
                              "!parameters.user_fused_activation.has_value())")
    if cfg.kind not in ("reuse", "mcast_2d", "mcast_1d"):
        return
    name = _cfg_name(cfg)
    out_l1_sharded = out.sharded and out.buffer_type == "l1" and out.shard is not None
    if not cfg.auto:
        regs = _dest_reg_count(ctx, mm)
        if cfg.out_subblock_h * cfg.out_subblock_w > regs:
            raise DeviceRejection(f"{name}: out_subblock_w {cfg.out_subblock_w} times out_subblock_h "
                                  f"{cfg.out_subblock_h} needs to be at most {regs} to fit in hardware")
        if out.sharded and not cfg.gather_in0:
            if not (cfg.out_subblock_w == cfg.per_core_n or cfg.out_subblock_h == 1):
                raise DeviceRejection(f"{name}: out_subblock_w ({cfg.out_subblock_w}) must equal per_core_N "
                                      f"({cfg.per_core_n}) or out_subblock_h ({cfg.out_subblock_h}) must be 1")
            if cfg.kind != "reuse" and not (cfg.out_block_w == cfg.per_core_n or cfg.out_block_h == 1):
                raise DeviceRejection(f"{name}: out_block_w ({cfg.out_block_w}) must equal per_core_N "
                                      f"({cfg.per_core_n}) or out_block_h ({cfg.out_block_h}) must be 1")
        if cfg.kind == "mcast_1d" and not cfg.gather_in0:
            mt, nt = mm.mt(cfg.fuse_batch), mm.nt
            nby, nbx = ceil_div(mt, cfg.per_core_m), ceil_div(nt, cfg.per_core_n)
            if nby * nbx > cfg.grid[0] * cfg.grid[1]:
                raise DeviceRejection(f"{name}: Number of blocks exceeds number of cores: {nby * nbx} blocks > "
                                      f"{cfg.grid[0] * cfg.grid[1]} cores")
            if cfg.mcast_in0 and nby != 1:
                raise DeviceRejection(f"{name}: mcast_in0 requires M ({mt}) to fit within a single per_core_M block "
                                      f"({cfg.per_core_m}), got num_blocks_y={nby}")
    if (not cfg.auto and cfg.kind == "mcast_2d" and out.memory_layout == "block_sharded" and not cfg.fuse_batch
            and _batch(a) > 1):
        # reported before the shard-grid check (measured: g1/ttnn.matmul/100057 fails both, the device names this)
        raise DeviceRejection(f"Block-sharded output is incompatible with batch > 1 (B={_batch(a)}): use "
                              "fuse_batch=True (TT_FATAL matmul_utilities.hpp !(output_is_sharded && B > 1))")
    if out_l1_sharded:
        extent = mm.device_grid if cfg.kind == "reuse" or cfg.gather_in0 else tuple(cfg.grid)
        box = bounding_box(out.shard.grid)
        if box.end.x >= extent[0] or box.end.y >= extent[1]:
            raise DeviceRejection(f"{name}: output shard grid [({box.start.x},{box.start.y}) - ({box.end.x},"
                                  f"{box.end.y})] must lie within extent {extent[0]}-{extent[1]}")


def _output_shard_grid(mm: _Mm, cfg: _Cfg) -> tuple[CoreRangeSet, bool] | None:
    """The shard grid and orientation (row-major?) of the output ``MatmulDeviceOperation::compute_output_specs``
    builds (matmul_device_operation.cpp, store file id 54508457935): 1D mcast, ``num_cores_to_corerangeset`` of
    its ``ceil(Mt / per_core_M) * ceil(Nt / per_core_N)`` blocks over the config grid, row by row (a block-sharded
    request on a one-row or one-column grid keeps the requested grid); 2D mcast, the blocks' rectangle from core
    (0, 0), column-major with ``transpose_mcast``; reuse, the requested grid, column-major unless ``a`` or ``b`` is
    sharded.  None for the other configs (their shard is the requested one)."""
    req = mm.out.shard.grid if mm.out.shard is not None else None
    nby, nbx = ceil_div(mm.mt(cfg.fuse_batch if cfg.kind == "mcast_1d" else True), cfg.per_core_m), \
        ceil_div(mm.nt, cfg.per_core_n)
    if cfg.kind == "mcast_1d" and not cfg.gather_in0:
        if mm.out.memory_layout == "block_sharded" and req is not None and 1 in _bbox_size(req):
            return req, True
        if nby * nbx > cfg.grid[0] * cfg.grid[1]:
            return None  # refused by the block count (IR configs) before the spec is built
        return num_cores_to_corerangeset(nby * nbx, tuple(cfg.grid), row_wise=True), True
    if cfg.kind == "mcast_2d":
        cols, rows = (nby, nbx) if cfg.transpose_mcast else (nbx, nby)
        return full_grid((cols, rows)), not cfg.transpose_mcast
    if cfg.kind == "reuse" and req is not None:
        return req, mm.a.sharded or mm.b.sharded
    return None


def _check_output_shard(mm: _Mm, cfg: _Cfg | None) -> None:
    """``TensorSpec``'s shard check (``validate_shard_spec_with_tensor_shape``, tensor_spec.cpp:173 at d80d9482;
    its text in store file id 3875860322) of the output ttnn builds (:func:`_output_mem`,
    :func:`_output_shard_grid`) on the padded rows x padded width: height sharded, the shard as wide as the row
    and no more shards than cores; width sharded, as tall as the rows and no more shards than cores; block
    sharded, one rectangle with the shards along the height (width) within its rows (columns), swapped for a
    column-major orientation.  Measured: g1/ttnn.linear/100001, a [per_core_M * 32, per_core_N * 32] = [.., 32]
    height shard of a 640-wide output ("Shard width 32 must match physical width 640 for height sharded");
    g1/ttnn.matmul/100049, a block-sharded output of ttnn's own 1D config on 16 cores of a 10-wide grid (two
    ranges: "Shard grid must be one full rectangular grid for block sharded!").

    Raises:
        DeviceRejection: the shard does not fit (tt-metal's message).
    """
    mem, shard = _output_mem(mm, cfg)
    if shard is None or cfg is None:
        return
    padded = mm.out.padded
    height, width = prod(padded[:-1]), padded[-1]
    why = None
    if mem == "height_sharded" and shard[1] != width:
        why = f"Shard width {shard[1]} must match physical width {width} for height sharded"
    elif mem == "width_sharded" and shard[0] != height:
        why = f"Shard height {shard[0]} must match physical height {height} for width sharded"
    grid = _output_shard_grid(mm, cfg)
    if why is None and grid is not None:
        crs, row_major = grid
        cores = sum((r.end.x - r.start.x + 1) * (r.end.y - r.start.y + 1) for r in crs.ranges)
        along_h, along_w = ceil_div(height, shard[0]), ceil_div(width, shard[1])
        if mem == "height_sharded" and along_h > cores:
            why = f"Number of shards along height {along_h} must not exceed number of cores {cores}"
        elif mem == "width_sharded" and along_w > cores:
            why = f"Number of shards along width {along_w} must not exceed number of cores {cores}"
        elif mem == "block_sharded":
            cols, rows = _bbox_size(crs)
            if len(crs.ranges) != 1:
                why = "Shard grid must be one full rectangular grid for block sharded!"
            elif row_major and along_h > rows:
                why = f"Number of shards along height {along_h} must not exceed number of rows {rows} for row major orientation!"
            elif row_major and along_w > cols:
                why = (f"Number of shards along width {along_w} must not exceed number of columns {cols} for row "
                       "major orientation!")
            elif not row_major and along_h > cols:
                why = (f"Number of shards along height {along_h} must not exceed number of columns {cols} for column "
                       "major orientation!")
            elif not row_major and along_w > rows:
                why = f"Number of shards along width {along_w} must not exceed number of rows {rows} for column major orientation!"
    if why:
        raise DeviceRejection(f"the output ttnn builds: {why} (TT_FATAL tensor_spec.cpp:173)")


def _output_mem(mm: _Mm, cfg: _Cfg | None) -> tuple[str | None, tuple[int, int] | None]:
    """The memory layout and shard shape (elements) of the output ``MatmulDeviceOperation::compute_output_specs``
    builds (see :func:`matmul_output_spec`)."""
    mem, shard = mm.out.memory_layout, None
    if mm.out.sharded and cfg is not None:
        if cfg.kind == "mcast_1d" and not cfg.gather_in0 and mem == "block_sharded" and mm.out.shard is not None:
            w, h = _bbox_size(mm.out.shard.grid)
            if w == 1 or h == 1:
                mem = "height_sharded" if w == 1 else "width_sharded"
        if cfg.kind == "mcast_1d" and cfg.gather_in0:
            shard = mm.out.shard.shape
        elif cfg.kind in ("mcast_1d", "mcast_2d", "reuse", "dram_sharded"):
            shard = (cfg.per_core_m * TILE, cfg.per_core_n * TILE)
    return mem, shard


def _check_sharded_a_2d(mm: _Mm, cfg: _Cfg) -> None:
    """``validate_matmul_mcast2d_config`` for a sharded ``a`` (:data:`_VALIDATE`, measured: g1/ttnn.matmul/100108,
    a block-sharded a with 4-tile shards under ``per_core_M`` 2, matmul_device_operation.cpp:1789): ``fuse_batch``
    on, ``per_core_M`` equal to the shard height in tiles, and the shard width in tiles a multiple of
    ``in0_block_w``.

    Raises:
        DeviceRejection: one of these fails (tt-metal's message).
    """
    name = _cfg_name(cfg)
    sh, sw = mm.a.shard.shape[0] // TILE, mm.a.shard.shape[1] // TILE
    if not cfg.fuse_batch:
        raise DeviceRejection(f"{name}: Batch fusion is required when input A is sharded")
    if cfg.per_core_m != sh:
        raise DeviceRejection(f"{name}: per_core_M ({cfg.per_core_m}) must equal shard_shape[0] / "
                              f"in0_tile.get_height() ({sh})")
    if sw % cfg.in0_block_w:
        raise DeviceRejection(f"{name}: shard_shape[1] / in0_tile.get_width() ({sw}) must be divisible by "
                              f"in0_block_w ({cfg.in0_block_w})")


def _cfg_name(cfg: _Cfg) -> str:
    """ttnn's name of the config type (the prefix of its validation messages)."""
    return {"mcast_2d": "MatmulMultiCoreReuseMultiCastProgramConfig",
            "mcast_1d": "MatmulMultiCoreReuseMultiCast1DProgramConfig",
            "reuse": "MatmulMultiCoreReuseProgramConfig",
            "dram_sharded": "MatmulMultiCoreReuseMultiCastDRAMShardedProgramConfig"}.get(
                cfg.kind, "MatmulMultiCoreProgramConfig")


def _factory_2d(mm: _Mm, cfg: _Cfg) -> ProgramModel:
    """MatmulMultiCoreReuseMcast2DProgramFactory (matmul_multicore_reuse_mcast_2d_program_factory.cpp @0000d49e).

    Per core, in tiles: in0 ``out_block_h * in0_block_w``, in1 ``out_block_w *
    in0_block_w``, both doubled when ``B * num_blocks > 1`` (``num_blocks = Kt /
    in0_block_w``, ``B`` = batch unless ``fuse_batch``); output ``out_block_h *
    out_block_w`` (``per_core_M * per_core_N`` backed by a BLOCK_SHARDED output);
    intermediate ``out_block`` tiles in its own format when it cannot share the
    output's buffer (different format, or a sharded output with ``per_core_M !=
    out_block_h``); bias ``out_block_w``; a BLOCK_SHARDED a's ``per_core_M *
    shard width`` block backed by its buffer (c_2); c_10 = in0's size with
    ``transpose_a``.  Packer L1 accumulation whenever ``num_blocks > 1`` (ttnn
    0.81.1, measured: a bfp8 output with ``num_blocks = 2`` gets a separate bf16
    intermediate; the stored version waits for ``num_blocks > 2`` without a
    bias).  The cores with work are the ``num_blocks_x *
    num_blocks_y`` rectangle (axes swapped by ``transpose_mcast``).
    Differences in ttnn 0.81.1 (Metal 2.0 port, measured): no 64 B ``c_6``
    L1-array CB; with a block-sharded a wider than the work, c_0 is a second
    DFB on the extra in0 sender cores and c_2 spans all of them while the other
    DFBs stay on the cores with work.

    Raises:
        DeviceRejection: configurations ttnn refuses (K not a multiple of
            ``in0_block_w``, more output blocks than grid rows/columns, a
            HEIGHT_SHARDED a with ``in0_block_w != Kt`` or on more than one
            column of cores...).
    """
    _check_blocks(cfg)
    a, b, out = mm.a, mm.b, mm.out
    B = 1 if cfg.fuse_batch else _batch(a)
    mt, kt, nt = mm.mt(cfg.fuse_batch), mm.kt, mm.nt
    if kt % cfg.in0_block_w:
        raise DeviceRejection(f"Kt {kt} is not a multiple of in0_block_w {cfg.in0_block_w} (ttnn refuses)")
    _check_work_per_core_m(mm, cfg)
    _check_fuse_batch_preamble(mm, cfg)
    if a.sharded and a.shard is not None and not cfg.auto:
        _check_sharded_a_2d(mm, cfg)
    if a.memory_layout == "height_sharded":
        if kt != cfg.in0_block_w:
            raise DeviceRejection(f"2D mcast with a HEIGHT_SHARDED a needs in0_block_w == Kt ({kt}) (ttnn refuses)")
        if _bbox_size(a.shard.grid)[0] != 1:
            raise DeviceRejection("2D mcast with a HEIGHT_SHARDED a needs a one-column shard grid (ttnn refuses)")
    num_blocks = kt // cfg.in0_block_w
    l1acc = mm.compute.packer_l1_acc and num_blocks > 1
    interm_fmt = _interm_format(mm, l1acc)
    dbl = _DEPTH if B * num_blocks > 1 else 1
    nby, nbx = ceil_div(mt, cfg.per_core_m), ceil_div(nt, cfg.per_core_n)
    if cfg.transpose_mcast:
        nbx, nby = nby, nbx
    if nbx > cfg.grid[0] or nby > cfg.grid[1]:
        raise DeviceRejection(f"{nbx}x{nby} output blocks exceed the config grid {cfg.grid[0]}x{cfg.grid[1]} (ttnn refuses)")
    cols, rows = nbx, nby  # work rectangle, already swapped for transpose_mcast
    work = full_grid((cols, rows))
    out_sharded = out.memory_layout == "block_sharded"
    cbs = [CB(0, "in0", a.tile_bytes, cfg.out_block_h * cfg.in0_block_w * dbl, work, a.memory_layout == "height_sharded")]
    extra = None
    all_cores = work
    if a.memory_layout == "block_sharded":
        sx, sy = _bbox_size(a.shard.grid)
        senders = sy if cfg.transpose_mcast else sx
        n_x = nby if cfg.transpose_mcast else nbx  # blocks along in0's width
        if senders > n_x:
            if cfg.transpose_mcast:
                extra = cores_set(core_range(0, n_x, nbx - 1, senders - 1))
                all_cores = full_grid((cols, senders))
            else:
                extra = cores_set(core_range(n_x, 0, senders - 1, nby - 1))
                all_cores = full_grid((senders, rows))
            cbs.append(CB(0, "in0 (senders without work)", a.tile_bytes, cbs[0].pages, extra))
    in1_borrowed = b.sharded and b.buffer_type == "l1"
    cbs.append(CB(1, "in1", b.tile_bytes, cfg.out_block_w * cfg.in0_block_w * dbl, work, in1_borrowed))
    if a.memory_layout == "block_sharded":
        cbs.append(CB(2, "in0 shard", a.tile_bytes, cfg.per_core_m * a.shard.tile_shape[1], all_cores, True))
    out_tiles = cfg.per_core_m * cfg.per_core_n if out_sharded else cfg.out_block_h * cfg.out_block_w
    separate = (out_sharded and cfg.per_core_m != cfg.out_block_h) or interm_fmt != out.dtype
    cbs += _out_and_interm(mm, out_tiles, cfg.out_block_h * cfg.out_block_w, work, interm_fmt, separate, out_sharded)
    if mm.bias is not None:
        cbs.append(CB(3, "bias", mm.bias.tile_bytes, cfg.out_block_w, work))
    if mm.ta:
        cbs.append(CB(10, "in0 transposed", a.tile_bytes, cbs[0].pages, work))
    notes = _notes(cfg, f"num_blocks {num_blocks}", l1acc, interm_fmt)
    return ProgramModel("MatmulMultiCoreReuseMcast2DProgramFactory", _SRC_2D, all_cores, cbs, notes)


def _factory_1d(mm: _Mm, cfg: _Cfg) -> ProgramModel:
    """MatmulMultiCoreReuseMcast1DProgramFactory: mcast of in0 or of in1, or the ring gather of in0 (matmul_multicore_reuse_mcast_1d_program_factory.cpp @00629f0f).

    Raises:
        DeviceRejection: configurations ttnn refuses.
    """
    _check_blocks(cfg)
    if cfg.gather_in0:
        return _factory_gather_in0(mm, cfg)
    if mm.kt % cfg.in0_block_w:
        raise DeviceRejection(f"Kt {mm.kt} is not a multiple of in0_block_w {cfg.in0_block_w} (ttnn refuses)")
    if not cfg.mcast_in0:
        _check_work_per_core_m(mm, cfg)
    _check_fuse_batch_preamble(mm, cfg)
    _check_sharded_a_1d(mm, cfg)
    return _factory_1d_in0(mm, cfg) if cfg.mcast_in0 else _factory_1d_in1(mm, cfg)


def _factory_1d_in0(mm: _Mm, cfg: _Cfg) -> ProgramModel:
    """The mcast-in0 half of the 1D factory (matmul_multicore_reuse_mcast_1d_program_factory.cpp @00629f0f).

    Per core, in tiles: in0 ``out_block_h * in0_block_w``, doubled when ``B *
    num_blocks > 1``, and in1 ``out_block_w * in0_block_w``, doubled when
    ``B_b * num_blocks > 1`` with ``B_b`` the batch of b unless ``fuse_batch``
    (measured: an unbatched b with a batch-7 a and one K block keeps in1 single);
    a sharded a's ``per_core_M
    * shard width`` block (c_2, its buffer); a locally sharded b's ``per_core_N *
    shard height`` (its buffer); output, intermediate and bias as in the 2D
    factory, with packer L1 accumulation whenever ``num_blocks > 1``.  Cores:
    ``ceil(N / per_core_N)`` with work, row by row over the config grid, widened
    to the number of a's shard cores.  ttnn 0.81.1 (measured) puts c_0 on the
    cores with work plus a second c_0 on the sender-only cores, c_2 on all cores
    and the rest on the cores with work.

    Raises:
        DeviceRejection: more than one output block along M (ttnn refuses).
    """
    a, b = mm.a, mm.b
    B = 1 if cfg.fuse_batch else _batch(a)
    mt, kt, nt = mm.mt(cfg.fuse_batch), mm.kt, mm.nt
    num_blocks = kt // cfg.in0_block_w
    l1acc = mm.compute.packer_l1_acc and num_blocks > 1
    interm_fmt = _interm_format(mm, l1acc)
    dbl = _DEPTH if B * num_blocks > 1 else 1
    if ceil_div(mt, cfg.per_core_m) != 1:
        raise DeviceRejection(f"1D mcast_in0 needs M ({mt} tiles) within per_core_M {cfg.per_core_m} (ttnn refuses)")
    work_n = ceil_div(nt, cfg.per_core_n)
    senders = a.shard.grid.num_cores if a.sharded else 1
    n_cores = max(work_n, senders) if a.sharded else work_n
    grid = cfg.grid
    if n_cores > grid[0] * grid[1]:
        # the factory's num_cores_to_corerangeset over the config grid (measured: g1/ttnn.linear/100028, a width-
        # sharded a on 21 cores under a 2x4 config grid; work_split.cpp:163)
        raise DeviceRejection(f"Target number of cores {n_cores} is greater than total available cores "
                              f"{grid[0] * grid[1]} (TT_FATAL work_split.cpp target_num_cores <= num_cores): the "
                              f"1D mcast_in0 program spans the {senders} shard cores of a")
    all_cores = num_cores_to_corerangeset(n_cores, grid, True)
    work = num_cores_to_corerangeset(work_n, grid, True)
    cbs = [CB(0, "in0", a.tile_bytes, cfg.out_block_h * cfg.in0_block_w * dbl, work)]
    if n_cores > work_n:
        senders_only = num_cores_to_corerangeset(n_cores - work_n, grid, True, start=(work_n % grid[0], work_n // grid[0]))
        cbs.append(CB(0, "in0 (senders without work)", a.tile_bytes, cbs[0].pages, senders_only))
    b_local = b.sharded and b.buffer_type == "l1"
    in1_dbl = _DEPTH if (1 if cfg.fuse_batch else _batch(b)) * num_blocks > 1 else 1
    in1_tiles = cfg.per_core_n * b.shard.tile_shape[0] if b_local else cfg.out_block_w * cfg.in0_block_w * in1_dbl
    cbs.append(CB(1, "in1", b.tile_bytes, in1_tiles, work, b_local))
    if a.sharded:
        cbs.append(CB(2, "in0 shard", a.tile_bytes, cfg.per_core_m * a.shard.tile_shape[1], all_cores, True))
    cbs += _cbs_1d_tail(mm, cfg, work, interm_fmt, cbs[0].pages)
    notes = _notes(cfg, f"num_blocks {num_blocks}", l1acc, interm_fmt)
    return ProgramModel("MatmulMultiCoreReuseMcast1DProgramFactory", _SRC_1D, all_cores, cbs, notes)


def _factory_1d_in1(mm: _Mm, cfg: _Cfg) -> ProgramModel:
    """The mcast-in1 half of the 1D factory (``process_mcast_in1_program``, matmul_multicore_reuse_mcast_1d_program_factory.cpp, store file id 68312624657).

    Per core, in tiles: in0 ``out_block_h * in0_block_w``, doubled when
    ``B_a * num_blocks > 1``; with ``a`` unbatched and ``b`` batched (interleaved,
    unsharded output) a is kept whole: ``per_core_M * Kt``; a sharded a is its
    shard (``num_blocks * per_core_M * in0_block_w * B_a``), backed by the
    buffer unless the shard holds several K blocks, or the core computes
    several output blocks both along M and along N (``per_core_M / out_block_h
    > 1`` and ``per_core_N / out_block_w > 1``: the shard is read again for each
    N block; measured on ttnn 0.81.1, f32 and bf16 a), when c_0 is a copy and c_2
    (one ``out_block_h * in0_block_w`` block) is backed by the buffer.  in1
    ``out_block_w * in0_block_w``, doubled when ``B_b * num_blocks > 1``.
    Output, intermediate and bias as in the 2D factory (packer L1 accumulation
    when ``num_blocks > 2``, or ``> 1`` with a bias).  Cores: ``ceil(M /
    per_core_M)``, row by row over the config grid; every CB on all of them.

    Raises:
        DeviceRejection: more than one output block along N (ttnn refuses).
    """
    a, b, out = mm.a, mm.b, mm.out
    in0_b = 1 if cfg.fuse_batch else _batch(a)
    in1_b = _batch(b)
    mt, kt, nt = mm.mt(cfg.fuse_batch), mm.kt, mm.nt
    num_blocks = kt // cfg.in0_block_w
    l1acc = mm.compute.packer_l1_acc and ((mm.bias is not None and num_blocks > 1) or num_blocks > 2)
    interm_fmt = _interm_format(mm, l1acc)
    if ceil_div(nt, cfg.per_core_n) != 1:
        raise DeviceRejection(f"1D mcast_in1 needs N ({nt} tiles) within per_core_N {cfg.per_core_n} (ttnn refuses)")
    n_cores = ceil_div(mt, cfg.per_core_m)
    cores = num_cores_to_corerangeset(n_cores, cfg.grid, True)
    reuse_in0 = (in0_b == 1 and in1_b > 1 and not a.sharded and not out.sharded and not mm.bcast_batch
                 and cfg.fused_activation is None)
    block = cfg.out_block_h * cfg.in0_block_w
    extract = a.sharded and (a.shard.tile_shape[1] // cfg.in0_block_w > 1 or (
        cfg.per_core_m // cfg.out_block_h > 1 and cfg.per_core_n // cfg.out_block_w > 1))
    if reuse_in0:
        in0_tiles = cfg.per_core_m * num_blocks * cfg.in0_block_w
    elif a.sharded:
        in0_tiles = num_blocks * cfg.per_core_m * cfg.in0_block_w * in0_b
    else:
        in0_tiles = block * (_DEPTH if in0_b * num_blocks > 1 else 1)
    cbs = [CB(0, "in0", a.tile_bytes, in0_tiles, cores, a.sharded and not extract)]
    if extract:
        cbs.append(CB(2, "in0 shard", a.tile_bytes, block, cores, True))
    cbs.append(CB(1, "in1", b.tile_bytes, cfg.out_block_w * cfg.in0_block_w * (_DEPTH if in1_b * num_blocks > 1 else 1),
                   cores))
    cbs += _cbs_1d_tail(mm, cfg, cores, interm_fmt, in0_tiles)
    notes = _notes(cfg, f"num_blocks {num_blocks}", l1acc, interm_fmt)
    if reuse_in0:
        notes.append("a (batch 1) is kept in L1 and reused for every batch of b")
    return ProgramModel("MatmulMultiCoreReuseMcast1DProgramFactory", _SRC_1D, cores, cbs, notes)


def _factory_gather_in0(mm: _Mm, cfg: _Cfg) -> ProgramModel:
    """The gather_in0 (ring) program of the 1D factory (``process_gather_in0_program_and_create_override_variables``,
    matmul_multicore_reuse_mcast_1d_program_factory.cpp, store file id 614524732); ttnn 0.81.1 runs it as the legacy
    MatmulMeshWorkloadMultiCoreReuseMcast1DProgramFactory (measured, plain CBs).

    a is WIDTH_SHARDED over a ring of cores; each core multiplies the shard it
    holds, then the shards the others pass round.  ``in0_block_w`` = a's shard
    width (K padded to a whole number of shards), ``num_blocks`` = ring size.
    Per core, in tiles: a's shard ``per_core_M * shard width`` (its buffer);
    b in DRAM ``2 * shard width * per_core_N``, b sharded in L1 its shard (its
    buffer); the other ``ring - 1`` shards ``(ring - 1) * per_core_M * shard
    width``; two 16 B sync CBs; the output ``per_core_M * per_core_N`` (the
    sharded output's buffer) and an intermediate of the same tiles when its
    format differs.  Cores: the bounding box of a's shard grid (no hop cores:
    the IR's ``hop_cores`` is empty or refused).

    Raises:
        CBModelError: a not WIDTH_SHARDED, the output not sharded, b neither in
            DRAM nor L1-sharded (ttnn refuses), or ``num_global_cb_receivers``
            of 0 with an L1-sharded b.
    """
    a, b, out = mm.a, mm.b, mm.out
    if a.memory_layout != "width_sharded" or a.shard is None:
        raise DeviceRejection("gather_in0 needs a WIDTH_SHARDED a (ttnn refuses)")
    if not out.sharded:
        raise DeviceRejection("gather_in0 needs a sharded output (ttnn refuses)")
    ring = a.shard.grid.num_cores
    sw = a.shard.tile_shape[1]
    l1acc = mm.compute.packer_l1_acc and ring > 1
    interm_fmt = _interm_format(mm, l1acc)
    cores = cores_set(bounding_box(a.shard.grid))
    pm, pn = cfg.per_core_m, cfg.per_core_n
    cbs = [CB(0, "in0 shard", a.tile_bytes, pm * sw, cores, True)]
    if b.buffer_type == "dram":
        cbs.append(CB(1, "in1", b.tile_bytes, 2 * sw * pn, cores))
    else:
        if not b.sharded:
            raise DeviceRejection("gather_in0 needs b in DRAM or sharded in L1 (ttnn refuses)")
        receivers = cfg.num_global_cb_receivers
        if receivers <= 0:
            raise CBModelError("gather_in0 with an L1-sharded b divides its shard by num_global_cb_receivers = 0")
        bh, bwid = b.shard.tile_shape
        cbs.append(CB(1, "in1 shard", b.tile_bytes, bh * (bwid // receivers), cores, True))
    cbs.append(CB(2, "in0 ring shards", a.tile_bytes, (ring - 1) * pm * sw, cores))
    cbs.append(CB(3, "sync", 16, 1, cores))
    cbs.append(CB(4, "sync 2", 16, 1, cores))
    separate = interm_fmt != out.dtype or (cfg.untilize_out and pn // cfg.out_subblock_w > 1)
    cbs.append(CB(5, "out", out.tile_bytes, pm * pn, cores, True))
    if separate:
        cbs.append(CB(6, "interm", interm_fmt.tile_bytes(), pm * pn, cores))
    notes = [f"config {cfg.describe()}, gather_in0 over a ring of {ring} cores",
             f"packer_l1_acc {'on' if l1acc else 'off'}, intermediate {interm_fmt}"]
    return ProgramModel("MatmulMeshWorkloadMultiCoreReuseMcast1DProgramFactory", _SRC_1D, cores, cbs, notes)


def _factory_reuse(mm: _Mm, cfg: _Cfg) -> ProgramModel:
    """MatmulMultiCoreReuseOptimizedProgramFactory (matmul_multicore_reuse_optimized_program_factory.cpp @00fca592).

    Per core, in tiles: in0 ``min(per_core_M, Mt) * in0_block_w * 2`` (a
    sharded a: ``per_core_M * Kt``, its buffer); in1 ``per_core_N * in0_block_w *
    2`` (sharded: ``* num_blocks * batch_scale`` instead of 2, its buffer);
    output ``per_core_M * per_core_N`` (a sharded output's buffer);
    intermediate the same tiles in its own format when it differs from the
    output's; c_10 = in0's size with ``transpose_a``.  Both inputs are always
    double-buffered; packer L1 accumulation when ``num_blocks > 2``.  No bias CB
    (ttnn adds a bias afterwards).  Cores: the first sharded tensor's shard grid
    (a, b, output), else ``split_work_to_cores`` of ``(B * Mt / per_core_M) * (Nt
    / per_core_N)`` blocks over the config grid, column by column.

    Raises:
        DeviceRejection: what ttnn's validation refuses: output blocks ``(B * Mt /
            per_core_M) * (Nt / per_core_N)`` that do not divide over the shard
            cores of an L1-sharded a (else b), ``per_core_N != Nt``,
            ``per_core_M`` neither dividing Mt nor a multiple of it dividing
            ``B * Mt``, ``out_subblock_h`` not dividing Mt when both inputs are
            batched, a sharded output with ``out_subblock_w != per_core_N`` and
            ``out_subblock_h != 1``, batch broadcasting, fewer blocks than shard cores.
    """
    a, b, out = mm.a, mm.b, mm.out
    if min(cfg.in0_block_w, cfg.per_core_m, cfg.per_core_n, cfg.out_subblock_h, cfg.out_subblock_w) <= 0:
        raise DeviceRejection(f"matmul config {cfg.describe()} has a zero block size (ttnn refuses)")
    B, mt, kt, nt = _batch(a), mm.mt(False), mm.kt, mm.nt
    pm, pn, bw = cfg.per_core_m, cfg.per_core_n, cfg.in0_block_w
    if kt % bw:
        raise DeviceRejection(f"Kt {kt} is not a multiple of in0_block_w {bw} (ttnn refuses)")
    in_shard = next((t.shard for t in (a, b) if t.sharded and t.buffer_type == "l1" and t.shard is not None), None)
    if in_shard is not None and ((B * mt // pm) * (nt // pn)) % in_shard.grid.num_cores:
        # validate_matmul_reuse_sharded_output_block_divisibility (matmul_device_operation.cpp:1022 in ttnn 0.81.1)
        raise DeviceRejection(f"MatmulMultiCoreReuseProgramConfig: num_output_blocks ({(B * mt // pm) * (nt // pn)}) "
                              "must be evenly divisible by the number of cores in the input shard grid "
                              f"({in_shard.grid.num_cores}) (TT_FATAL num_output_blocks % num_cores == 0)")
    if nt != pn:
        raise DeviceRejection(f"MatmulMultiCoreReuseProgramConfig needs per_core_N == Nt ({pn} != {nt}) (ttnn refuses)")
    if (pm > mt and (pm % mt or (B * mt) % pm)) or (pm <= mt and mt % pm):
        raise DeviceRejection(f"per_core_M {pm} must divide Mt {mt} or be a multiple of it dividing B*Mt (ttnn refuses)")
    if _batch(a) > 1 and _batch(b) > 1 and mt % cfg.out_subblock_h:
        raise DeviceRejection(f"batched matmul: out_subblock_h {cfg.out_subblock_h} must divide Mt {mt} (ttnn refuses)")
    if out.sharded and not (cfg.out_subblock_w == pn or cfg.out_subblock_h == 1):
        raise DeviceRejection("sharded output: out_subblock_w must equal per_core_N or out_subblock_h be 1 (ttnn refuses)")
    if mm.bcast_batch:
        raise DeviceRejection("MatmulMultiCoreReuseProgramConfig: ttnn refuses batch broadcasting (b unbatched, a batched)")
    num_blocks = kt // bw
    scale = pm // mt if pm > mt else 1
    l1acc = mm.compute.packer_l1_acc and num_blocks > 2
    interm_fmt = _interm_format(mm, l1acc)
    blocks = (B * mt // pm) * (nt // pn)
    shard = next((t.shard.grid for t in (a, b, out) if t.sharded and t.shard is not None), None)
    if shard is not None:
        cores = shard
        if blocks // cores.num_cores == 0:
            raise DeviceRejection(f"{blocks} output blocks for {cores.num_cores} shard cores (ttnn refuses)")
    else:
        cores = split_work_to_cores(cfg.grid, blocks).all_cores
    in0_tiles = pm * kt if a.sharded else min(pm, mt) * bw * 2
    in1_tiles = pn * bw * (num_blocks * scale if b.sharded else 2)
    cbs = [CB(0, "in0", a.tile_bytes, in0_tiles, cores, a.sharded),
           CB(1, "in1", b.tile_bytes, in1_tiles, cores, b.sharded)]
    separate = interm_fmt != out.dtype
    cbs += _out_and_interm(mm, pm * pn, pm * pn, cores, interm_fmt, separate, out.sharded)
    if mm.ta:
        cbs.append(CB(10, "in0 transposed", a.tile_bytes, in0_tiles, cores))
    notes = _notes(cfg, f"{blocks} output blocks", l1acc, interm_fmt)
    return ProgramModel("MatmulMultiCoreReuseOptimizedProgramFactory", _SRC_REUSE, cores, cbs, notes)


def _factory_multicore(mm: _Mm, cfg: _Cfg) -> ProgramModel:
    """MatmulMultiCoreProgramFactory (matmul_multicore_program_factory.cpp @01502698): one output tile at a time.

    2 tiles of a (c_0), 2 of b (c_1), 2 of the output (c_16) on the first
    ``min(output tiles, cores)`` cores of the device grid, column by column.
    """
    out_tiles = prod(mm.out.padded) // (TILE * TILE)
    cores = split_work_to_cores(mm.device_grid, out_tiles).all_cores
    cbs = [CB(0, "in0", mm.a.tile_bytes, 2, cores), CB(1, "in1", mm.b.tile_bytes, 2, cores),
           CB(16, "out", mm.out.tile_bytes, 2, cores)]
    return ProgramModel("MatmulMultiCoreProgramFactory", _SRC_MULTI, cores, cbs,
                        [f"config {cfg.describe()} (automatic)", f"{out_tiles} output tiles"])


# DRAM bank -> reader worker core (x, y) that tt-metal's get_optimal_dram_bank_to_logical_worker_assignment
# gives on the mock Blackhole P150 for NOC_0, the NOC the DRAM-sharded factory reads in1 with
# (preferred_noc_for_dram_read): measured with device.get_optimal_dram_bank_to_logical_worker_assignment.
_P150_DRAM_READERS = ((0, 9), (0, 0), (0, 7), (0, 3), (6, 9), (6, 1), (6, 6), (6, 4))


def _factory_dram_sharded(mm: _Mm, cfg: _Cfg, arch_name: str) -> ProgramModel:
    """MatmulMultiCoreReuseMultiCastDRAMShardedProgramFactory (matmul_multicore_reuse_mcast_dram_sharded_program_factory.cpp @01502698).

    ``per_core_N = ceil(Nt / banks)`` for compute, widened to a multiple of the
    widest output subblock; per core, in tiles: in0 ``per_core_M * in0_block_w``
    doubled when ``B * num_blocks > 1``, in1 ``ceil(Nt / banks) *
    in0_block_w`` tripled, output and intermediate ``per_core_M *
    per_core_N_compute``, bias ``per_core_N_compute``; c_2 (a's shard) and c_6
    (the resharded output, ``per_core_M * per_core_N``) are backed by the
    tensors (ttnn 0.81.1's capture does not list them).  Every CB is on the
    bounding box of a's shard cores and the DRAM reader cores (one per bank
    that holds data).

    Raises:
        CBModelError: not on a Blackhole P150 (the reader cores are measured
            there only), a/b/output not sharded as the factory needs, or a
            taller than one tile row (ttnn refuses).
    """
    a, b, out = mm.a, mm.b, mm.out
    if arch_name != "blackhole" or mm.dram_banks != len(_P150_DRAM_READERS):
        raise CBModelError("DRAM-sharded matmul reader cores are only known for the Blackhole P150")
    if not (a.sharded and a.buffer_type == "l1" and b.sharded and b.buffer_type == "dram" and out.sharded):
        raise CBModelError("DRAM-sharded matmul needs an L1-sharded a, a DRAM-sharded b and a sharded output")
    kt, nt = mm.kt, mm.nt
    if kt % cfg.in0_block_w:
        raise DeviceRejection(f"Kt {kt} is not a multiple of in0_block_w {cfg.in0_block_w} (ttnn refuses)")
    if mm.mt(True) != 1:
        raise DeviceRejection("DRAM-sharded matmul supports an a of one tile row only (ttnn refuses)")
    readers = list(_P150_DRAM_READERS)
    in1_shard_w = b.shard.tile_shape[1]
    padded_w = in1_shard_w * len(readers)
    if padded_w > nt:
        readers = readers[: len(readers) - (padded_w - nt) // in1_shard_w]
    banks = len(readers)
    pn_sender = ceil_div(nt, banks)
    pn = pn_sender
    fp32 = mm.compute.fp32_dest_acc_en
    sh, sw = _subblock_params(cfg.per_core_m, pn, False, False, fp32)
    max_w = 4 if fp32 else 8
    if sh == 1 and sw < max_w:
        per_n = pn // sw
        best = sw
        for new_w in range(sw + 1, max_w + 1):
            n_new = ceil_div(pn, new_w)
            if n_new < per_n:
                per_n, best = n_new, new_w
        pn = best * per_n
    num_blocks = kt // cfg.in0_block_w
    B = _batch(a)
    l1acc = mm.compute.packer_l1_acc and num_blocks > 1
    interm_fmt = _interm_format(mm, l1acc)
    cells = corerange_to_cores(a.shard.grid) + readers
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    box = cores_set(core_range(min(xs), min(ys), max(xs), max(ys)))
    pm = cfg.per_core_m
    multi = B * num_blocks > 1
    cbs = [CB(0, "in0", a.tile_bytes, pm * cfg.in0_block_w * (2 if multi else 1), box),
           CB(1, "in1", b.tile_bytes, pn_sender * cfg.in0_block_w * (3 if multi else 1), box),
           CB(2, "in0 shard", a.tile_bytes, pm * a.shard.tile_shape[1], box, True)]
    separate = interm_fmt != out.dtype
    cbs += _out_and_interm(mm, pm * pn, pm * pn, box, interm_fmt, separate, False)
    cbs.append(CB(6, "out reshard", out.tile_bytes, pm * cfg.per_core_n, box, True))
    if mm.bias is not None:
        cbs.append(CB(3, "bias", mm.bias.tile_bytes, pn, box))
    notes = _notes(cfg, f"{banks} DRAM reader cores, per_core_N compute {pn}", l1acc, interm_fmt)
    return ProgramModel("MatmulMultiCoreReuseMultiCastDRAMShardedProgramFactory", _SRC_DRAM, box, cbs, notes)


def _check_batches(ctx: CBContext, cfg: _Cfg) -> None:
    """ttnn's batch validation for a batched ``b`` (``validate_matmul_batch_dims``, measured on ttnn 0.81.1).

    A batched ``b`` needs an ``a`` of the same rank whose batch dims equal
    ``b``'s, or are all 1 with the 1D mcast-in1 config (a kept in L1 and
    reused for every batch of b).

    Raises:
        DeviceRejection: other shapes ("Batched (non-bcast) matmul requires inputs
            of the same rank", "bmm (non-bcast matmul) expects input tensors of
            shapes BCMK*BCKN=BCMN").
    """
    sa, sb = ctx.op.operands[0].type.shape, ctx.op.operands[1].type.shape
    if len(sb) <= 2 or all(d == 1 for d in sb[:-2]):
        return
    if len(sa) != len(sb):
        raise DeviceRejection(f"ttnn refuses a batched b of rank {len(sb)} with an a of rank {len(sa)}")
    if tuple(sa[:-2]) == tuple(sb[:-2]):
        return
    if all(d == 1 for d in sa[:-2]) and cfg.kind == "mcast_1d" and not cfg.mcast_in0 and not cfg.gather_in0:
        return
    raise DeviceRejection(f"ttnn refuses batch dims {list(sa[:-2])} x {list(sb[:-2])}: they must match, or a's be all 1 "
                       "with the 1D mcast-in1 config")


def _transpose_programs(ctx: CBContext, mm: _Mm) -> list[ProgramModel]:
    """The explicit transposes ttnn 0.81.1 runs before a MatmulMultiCoreProgramFactory matmul.

    That factory reads its operands untransposed, so ``transpose_a`` /
    ``transpose_b`` become ``ttnn.transpose(x, -2, -1)`` programs (a first) in
    the operand's own memory config; the mcast and reuse factories transpose
    while reading and run none.  Measured on mock P150, ttnn 0.81.1: a
    ``TransposeDeviceOperation`` program (2 x 4,096 B) before the matmul for
    L1 ``[64, 128] @ [256, 128]^T``, two for ``transpose_a`` and ``transpose_b``,
    none for the same op in DRAM (2D mcast).
    """
    steps: list[ProgramModel] = []
    for i, flag in ((0, mm.ta), (1, bool(ctx.op.attrs.get("transpose_b")))):
        if not flag:
            continue
        x = operand(ctx, i)
        if x.rank < 2:
            continue
        t = x.with_(shape=(*x.shape[:-2], x.shape[-1], x.shape[-2]))
        for step in transpose_steps(x, x.rank - 2, x.rank - 1, t, mm.device_grid):
            step.inputs, step.outputs = (x,), (t,)
            steps.append(step)
    return steps


# Why a refusal of _post_bias_shape_after_transposes with a block-float operand or a fused activation is a warning:
# found by measurement, the code path unread, and a held-out draw of that kind ran.  Without either (bf16/f32
# operands, no activation) every measured draw was refused.
_UNREAD_TRANSPOSED_BIAS = (
    "this refusal is measured, not read from tt-metal's code path, and a held-out draw with block-float operands "
    "and a fused activation ran (g1/ttnn.linear/100152: [64, 416] bfp_bf8 x transposed [320, 416] bfp_bf4, bias "
    "[320], gelu, on MatmulMultiCoreProgramFactory with no transpose program)")


def _post_bias_shape_after_transposes(ctx: CBContext) -> tuple[int, ...]:
    """The result shape of a matmul whose operands ttnn transposed first (MatmulMultiCoreProgramFactory) and whose
    bias it adds afterwards.

    ttnn 0.81.1 shapes that result as if the *untransposed* operands were
    multiplied without transposes (``compute_matmul_output_shape`` of the
    original tensors with the cleared flags: M = a's rows, N = b's last dim),
    broadcast with the bias, and returns it with that shape.  Measured on mock
    P150 (opdiff g1/ttnn.linear/66, 83, 106, 144, 173, 287, 307): when that
    shape does not broadcast with the bias, the add fails ("Broadcast error",
    matmul_utilities.cpp:195); when it needs more tiles than the product, it
    does not fit the result's buffer (mesh_tensor_impl.hpp:33); when it is not
    tile-aligned and has another volume, the reshape to it fails
    (reshape.cpp:736: ``[5, 4]^T @ [5, 8]``, ``[341, 450]^T @ [341, 159]``); a
    tile-aligned shape with fewer tiles comes back as is (``[1024, 5248]^T @
    [1024, 832]`` returns ``[1024, 832]``, and ``[3712, 5888]^T @ [3712, 3744]``),
    and so does the product's own shape.  The split between the last two cases
    is what the measurements show; the code path behind it is not read, and a
    held-out draw with block-float operands and a fused activation ran
    (g1/ttnn.linear/100152, no transpose program before its matmul): with a
    block-float operand or an activation the refusal carries ``unsure`` and is
    reported as a warning; without them (bf16/f32, every such draw refused) it
    is an error.

    Raises:
        DeviceRejection: the broadcast fails, more tiles, or a non-tile-aligned shape of another volume.
    """
    op = ctx.op
    sa, sb = tuple(op.operands[0].type.shape), tuple(op.operands[1].type.shape)
    bias = tuple(op.operands[2].type.shape)
    true_shape = broadcast(ttnn_output_shape(sa, sb, bool(op.attrs.get("transpose_a")),
                                             bool(op.attrs.get("transpose_b"))), bias)
    why = "ttnn 0.81.1 shapes the result of a matmul whose operands it transposed first from the untransposed operands"
    block_float = any(operand(ctx, i).dtype.is_block_float for i in range(3))
    unsure = _UNREAD_TRANSPOSED_BIAS if block_float or op.attrs.get("activation") else ""
    try:
        wrong = broadcast(ttnn_output_shape(sa, sb, False, False), bias)
    except ShapeError as exc:
        raise DeviceRejection(f"{why}: the bias add fails (TT_FATAL matmul_utilities.cpp:195 'dim_a == dim_b || "
                              "dim_a == 1 || dim_b == 1': Broadcast error: Invalid dimension)", unsure) from exc
    tiles_wrong, tiles_true = prod(tile_padded_shape(wrong)), prod(tile_padded_shape(true_shape))
    shapes = f"{'x'.join(map(str, wrong))} instead of {'x'.join(map(str, true_shape))}"
    if tiles_wrong > tiles_true:
        raise DeviceRejection(f"{why}: {shapes}, more tiles than its buffer holds (TT_FATAL mesh_tensor_impl.hpp:33 "
                              "'MeshBuffer must be large enough to hold the tensor')", unsure)
    aligned = tuple(wrong) == tile_padded_shape(wrong)
    if wrong != true_shape and not aligned and prod(wrong) != prod(true_shape):
        raise DeviceRejection(f"{why}: {shapes}, another volume (TT_FATAL reshape.cpp:736 'Attempting to reshape "
                              "between two shapes with different volumes')", unsure)
    return wrong


@register_cb(("ttnn.matmul", "ttnn.linear"))
def matmul_program(ctx: CBContext) -> list[ProgramModel]:
    """The programs ttnn 0.81.1 runs for ``ctx.op``, in order, each with its factory, cores and CBs.

    The IR's program config (or the automatic one, chosen from the shapes,
    memory configs, compute config and ``ctx.max_l1_space`` as ttnn does)
    selects the matmul factory; see the factory functions for the CBs.  Around
    it (``bound_matmul``, ``ttnn/cpp/ttnn/operations/matmul/matmul.cpp``
    @0167725f, and measured): the explicit transposes of the multi-core factory
    (:func:`_transpose_programs`), then the matmul, then a binary ``add`` of a
    bias ttnn does not fuse (:func:`_post_process_bias`), then the
    ``activation`` attribute as a unary program (``Unary_chain``).

    Raises:
        DeviceRejection: configurations ttnn refuses, among them a transposed
            operand on the multi-core factory with a post-processed bias
            (:func:`_post_bias_shape_after_transposes`).
        CBModelError: configurations outside the model.
    """
    mm, cfg = _operands(ctx)
    post_bias = _post_process_bias(mm, cfg)
    mm = _fused_bias_view(mm, cfg)
    if cfg is None:
        cfg = _auto_config(mm)
    _check_batches(ctx, cfg)
    _check_ttnn_validation(ctx, mm, cfg)
    _check_output_shard(mm, cfg)
    kind = cfg.kind
    steps = _transpose_programs(ctx, mm) if kind == "multicore" else []
    if steps and post_bias:
        shape = _post_bias_shape_after_transposes(ctx)
        if shape != tuple(ctx.op.results[0].type.shape):
            steps[-1].notes.append(f"ttnn returns the result as {'x'.join(map(str, shape))} (the shape of the "
                                   "untransposed operands' product, see _post_bias_shape_after_transposes)")
    if kind == "mcast_2d":
        prog = _factory_2d(mm, cfg)
    elif kind == "mcast_1d":
        prog = _factory_1d(mm, cfg)
    elif kind == "reuse":
        prog = _factory_reuse(mm, cfg)
    elif kind == "dram_sharded":
        prog = _factory_dram_sharded(mm, cfg, ctx.arch.name)
    else:
        prog = _factory_multicore(mm, cfg)
    prog.inputs = (mm.a, mm.b) + ((mm.bias,) if mm.bias is not None else ())
    prog.outputs = (mm.out,)
    prog.params["program_config"] = {
        "kind": kind, "in0_block_w": cfg.in0_block_w, "out_subblock_h": cfg.out_subblock_h,
        "out_subblock_w": cfg.out_subblock_w, "per_core_m": cfg.per_core_m, "per_core_n": cfg.per_core_n,
        "grid": tuple(cfg.grid), "mcast_in0": cfg.mcast_in0, "fuse_batch": cfg.fuse_batch, "auto": cfg.auto}
    steps.append(prog)
    if post_bias:
        prog.notes.append("the bias is added by a separate binary_ng add program after this one")
        bias = operand(ctx, 2)
        add = binary_program(BinaryCall("add"), mm.out, bias, mm.out, mm.device_grid)
        add.inputs, add.outputs = (mm.out, bias), (mm.out,)
        steps.append(add)
    activation = ctx.op.attrs.get("activation")
    if activation:
        prog.notes.append(f"activation '{activation}' runs as a separate unary program after this one")
        unary = unary_program(mm.out, mm.out, mm.device_grid)
        unary.inputs, unary.outputs = (mm.out,), (mm.out,)
        unary.params["unary_ops"] = [str(activation)]
        steps.append(unary)
    return steps


@register_spec(("ttnn.matmul", "ttnn.linear"))
def matmul_output_spec(ctx: CBContext) -> list[TensorSpec]:
    """The tensor ttnn 0.81.1 returns (``MatmulDeviceOperation::compute_output_specs``, matmul_device_operation.cpp @001cea9a).

    Logical shape from :func:`ttnn_output_shape` (ttnn's batch rule, not a
    broadcast), broadcast with ``linear``'s bias
    (``compute_matmul_with_bias_output_shape``), tile-padded; the requested
    dtype and buffer type.  A bias added after operands ttnn transposed first
    gives the shape of :func:`_post_bias_shape_after_transposes`.  A sharded output of a 1D config keeps the requested
    layout, except BLOCK_SHARDED on a one-row (one-column) grid, which ttnn
    turns into WIDTH (HEIGHT) sharding; the shard shape is ``[per_core_M * 32,
    per_core_N * 32]`` of the config (gather_in0 keeps the requested shard).  The layout
    is TILE even for a 1D config with ``untilize_out`` (measured; the stored
    version returns ROW_MAJOR there).

    Raises:
        CBModelError: see :func:`matmul_program`; a bias that does not broadcast
            to the product (ttnn: "Broadcast error: Invalid dimension").
    """
    mm, cfg = _operands(ctx)
    post_bias = _post_process_bias(mm, cfg)
    mm = _fused_bias_view(mm, cfg)
    op = ctx.op
    transposed = any(op.attrs.get(f) and len(op.operands[i].type.shape) >= 2
                     for i, f in ((0, "transpose_a"), (1, "transpose_b")))
    if cfg is None and (mm.out.sharded or (post_bias and transposed)):
        cfg = _auto_config(mm)
    shape = ttnn_output_shape(op.operands[0].type.shape, op.operands[1].type.shape,
                              bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b")))
    if op.name == "ttnn.linear" and len(op.operands) > 2 and op.operands[2].is_tensor:
        try:
            shape = broadcast(shape, tuple(op.operands[2].type.shape))
        except ShapeError as exc:
            raise DeviceRejection(f"ttnn refuses the bias: {exc}") from exc
    if post_bias and transposed and cfg is not None and cfg.kind == "multicore":
        shape = _post_bias_shape_after_transposes(ctx)
    layout = "tile"
    padded = tile_padded_shape(shape)
    mem, shard = _output_mem(mm, cfg)
    return [TensorSpec(tuple(shape), tuple(padded), layout, str(mm.out.dtype), mm.out.buffer_type, mem, shard)]
