"""Elementwise unary, binary and ternary ops: shape rules and programs.

Shapes: unary ops keep the shape; binary and ternary ops broadcast their
operands numpy-style (tt-mlir ``TTNN_ElementwiseBinaryOp`` uses
``OpTrait::util::getBroadcastedShape``; tt-mlir 19c86fca,
``include/ttmlir/Dialect/TTNN/IR/TTNNOps.td``).

Programs (:mod:`ttanalyze.ops.cb`).  The ops are replayed the way the tt-mlir
runtime calls them (``runtime/lib/ttnn/operations/eltwise/{unary,binary}``):
the declared result's memory config is always passed as ``memory_config``, so
tt-metal's ``worker_grid`` is the whole compute grid and every CB below sits on
all its cores.  In ttnn 0.81.1 (tt-metal d80d9482) every IR unary op runs
``UnaryDeviceOperation::ProgramFactory``, every IR binary op (``maximum``,
``remainder``, ``pow_tensor`` and ``atan2`` included) a single
``BinaryNgDeviceOperation::ProgramFactory`` program, and ``ttnn.where`` with
three tensors ``TernaryDeviceOperation`` (TTT).  The tt-metal sources read are

* unary: ``ttnn/cpp/ttnn/operations/eltwise/unary/device/unary_program_factory.cpp``
  @019b681e and ``eltwise/unary_ng/common/unary_ng_utils.cpp`` @25d39892
  (``is_native_L1_sharding``);
* binary_ng: ``eltwise/binary_ng/device/programs/binary_ng_program_factory.cpp``
  @ce8e3f88 (CB list, multi-tile cycles), ``binary_ng_device_operation.cpp`` and
  ``binary_ng_utils.cpp`` @b0fb323a (worker grid, subtile broadcast, SFPU choice,
  op configs);
* ternary: ``eltwise/ternary/device/ternary_program_factory.cpp`` @b75493ad and
  ``ternary_op_utils.cpp`` (``get_broadcast_type``).

None of these is the 0.81.1 commit.  Where the mock P150 (ttnn 0.81.1, NO_DISPATCH
graph capture; ``measurements/opdiff/results.jsonl.gz``) disagrees, the model follows the
measurement: binary_ng's native-L1-sharding test, the SFPU choice of bf16
multiply / comparison ops, and the broadcast CB of every broadcast type were
measured (see :func:`binary_native_sharding`, :func:`binary_is_sfpu`).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from ..ir.attrs import UnaryWithParam
from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .registry import ShapeError, register, register_cb, tensor_shape
from .tensors import TILE, Tensor, operand, result
from .work_split import full_grid

_TD = "tt-mlir include/ttmlir/Dialect/TTNN/IR/TTNNOps.td @19c86fca"
_TM = "tt-metal ttnn/cpp/ttnn/operations/eltwise/"
_UNARY_SRC = _TM + "unary/device/unary_program_factory.cpp @019b681e (measured on ttnn 0.81.1)"
_BNG_SRC = (_TM + "binary_ng/device/programs/binary_ng_program_factory.cpp @ce8e3f88, "
            "binary_ng_utils.cpp / binary_ng_device_operation.cpp @b0fb323a (measured on ttnn 0.81.1)")
_TERNARY_SRC = _TM + "ternary/device/ternary_program_factory.cpp @b75493ad (measured on ttnn 0.81.1)"

UNARY = (
    "abs", "cbrt", "ceil", "sign", "cos", "acos", "exp", "erf", "erfc", "floor", "gelu", "isfinite",
    "logical_not", "bitwise_not", "neg", "tan", "atan", "tanh", "reciprocal", "relu", "relu6", "sin",
    "asin", "asinh", "sqrt", "rsqrt", "sigmoid", "hardsigmoid", "silu", "mish", "log", "log1p", "expm1",
    "leaky_relu", "clamp_scalar",
)
BINARY = (
    "add", "divide", "multiply", "logical_right_shift", "subtract", "eq", "ne", "ge", "gt", "le", "lt",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "logical_left_shift", "bitwise_or",
    "bitwise_xor", "maximum", "minimum", "remainder", "pow_tensor", "atan2",
)
# Fused activations on binary ops (TTNN_ElementwiseBinaryOp properties).
_BINARY_ATTRS = ("activations", "input_tensor_a_activations", "input_tensor_b_activations", "dtype", "memory_config")


def broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Numpy broadcast of two shapes.

    Raises:
        ShapeError: a pair of dims that are neither equal nor 1.
    """
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            raise ShapeError(f"shapes {'x'.join(map(str, a))} and {'x'.join(map(str, b))} do not broadcast")
        out.append(max(x, y))
    return tuple(reversed(out))


@register(tuple(f"ttnn.{n}" for n in UNARY), "eltwise_unary", ("parameter", "min", "max", "memory_config"), f"{_TD} TTNN_ElementwiseUnaryOp")
def unary(op: Op):
    return [tensor_shape(op, 0)]


@register(tuple(f"ttnn.{n}" for n in BINARY), "eltwise_binary", _BINARY_ATTRS, f"{_TD} TTNN_ElementwiseBinaryOp")
def binary(op: Op):
    return [broadcast(tensor_shape(op, 0), tensor_shape(op, 1))]


@register("ttnn.pow_scalar", "eltwise_unary", ("rhs", "exponent"), f"{_TD} TTNN_ElementwiseBinaryCompositeScalarOp")
def pow_scalar(op: Op):
    return [tensor_shape(op, 0)]


@register("ttnn.where", "eltwise_ternary", (), f"{_TD} TTNN_ElementwiseTernaryOp")
def where(op: Op):
    if len(op.operands) != 3:
        raise ShapeError("ttnn.where takes three operands")
    return [broadcast(broadcast(tensor_shape(op, 0), tensor_shape(op, 1)), tensor_shape(op, 2))]


# ---------------------------------------------------------------------------
# Tensor facts shared by the three factories
# ---------------------------------------------------------------------------


def same_grid(a: Tensor, b: Tensor) -> bool:
    """Both tensors sharded over the same cores (``ShardSpec::grid`` equality)."""
    return a.shard is not None and b.shard is not None and a.shard.grid == b.shard.grid


def is_uneven(t: Tensor) -> bool:
    """A shard spec that does not divide the padded tensor: ``prod(padded[:-1]) % shard_h`` or ``padded[-1] % shard_w``.

    (``is_uneven`` in binary_ng_utils.cpp / unary_ng_utils.cpp.)
    """
    if t.shard is None:
        return False
    padded = t.padded
    h, w = t.shard.shape
    return prod(padded[:-1]) % h != 0 or padded[-1] % w != 0


# ---------------------------------------------------------------------------
# Unary
# ---------------------------------------------------------------------------


def unary_native_sharding(x: Tensor, out: Tensor) -> bool:
    """UnaryDeviceOperation's sharded path: both tensors L1-sharded on the same grid, the input evenly.

    ``unary_ng_utils.cpp`` ``is_native_L1_sharding`` (@25d39892).
    Measured on mock P150, ttnn 0.81.1: interleaved -> sharded, sharded ->
    interleaved, an uneven height shard and sharded -> sharded on another grid
    all take the interleaved path (two 2-tile CBs); so does an evenly
    height-sharded row-major tensor (campaign instance g1/ttnn.erf/0, a
    ``[2, 1]`` bf16 shard on one core: two 4,096-B CBs on the whole grid).
    """
    return (x.tiled and x.sharded and out.sharded and x.l1 and out.l1 and not is_uneven(x)
            and same_grid(x, out))


def unary_program(x: Tensor, out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """UnaryDeviceOperation::ProgramFactory: ``c_0`` input and ``c_2`` output on the whole grid.

    Each CB holds 2 tiles (double buffering), or on the native sharded path the
    whole shard, backed by the tensor's own L1 buffer (``.buffer = src/dst``,
    so it adds no L1).  Row-major tensors use tile-sized pages as well.  No IR
    unary op needs the ``c_1`` scratch CB (LOGIT only).

    Measured on mock P150, ttnn 0.81.1 (tt-metal d80d9482): relu [32, 256] bf16
    DRAM 2 x 4,096 B; f32 2 x 8,192 B; bfp8 2 x 2,176 B; width-sharded [32, 256]
    on 8 cores 2 x 2,048 B backed by the tensors.
    """
    cores = full_grid(grid)
    native = unary_native_sharding(x, out)
    cbs = [
        CB(0, "src0", x.tile_bytes, x.shard.tiles if native else 2, cores, native),
        CB(2, "output", out.tile_bytes, out.shard.tiles if native else 2, cores, native),
    ]
    note = "native L1 sharding: the CBs are the input and output shards" if native else \
        "interleaved path: 2-tile input and output CBs"
    return ProgramModel("UnaryDeviceOperation::ProgramFactory", _UNARY_SRC, cores, cbs, [note])


@register_cb(tuple(f"ttnn.{n}" for n in UNARY) + ("ttnn.pow_scalar",))
def unary_cb(ctx: CBContext) -> ProgramModel:
    """CB model of the IR unary ops (and ``pow_scalar``): :func:`unary_program`.

    Raises:
        DeviceRejection: ``sign`` of an integer tensor (``UnaryDeviceOperation::validate_on_program_cache_miss``
            -> ``validate_integer_input_dtype``: SIGN has no integer LLK; unary_device_operation.cpp:108 at
            d80d9482, "Unary: UnaryOpType::SIGN does not support integer input dtype", measured in the opdiff
            campaign, g1/ttnn.sign/11).  The other integer unary ops the campaign draws (abs, neg, relu,
            logical_not, bitwise_not) run.
            A rank-1 row-major sharded input: the row-major sharded path first checks its rank (TT_FATAL
            eltwise/unary/common/unary_utils.cpp:30 at d80d9482, "Rank must be at least 2"; measured in the
            campaign on abs, gelu, asin, log1p, ceil: every rank-1 row-major sharded unary refused, every
            rank-1 TILE sharded or row-major interleaved one ran).
    """
    x = operand(ctx, 0)
    if ctx.op.name == "ttnn.sign" and x.dtype.name in _INT:
        raise DeviceRejection(f"sign of {x.dtype} fails validation (TT_FATAL: Unary: UnaryOpType::SIGN does not "
                              "support integer input dtype)")
    if x.rank < 2 and x.sharded and not x.tiled:
        raise DeviceRejection(f"{ctx.op.name} of a rank-{x.rank} row-major sharded tensor: TT_FATAL "
                              "eltwise/unary/common/unary_utils.cpp 'Rank must be at least 2'")
    return unary_program(x, result(ctx), ctx.grid)


# ---------------------------------------------------------------------------
# Binary (binary_ng)
# ---------------------------------------------------------------------------

# Subtile broadcast types that add the a-side (c_5) or b-side (c_6) broadcast CB.
_BCAST_A = ("row_a", "row_a_col_b", "col_a", "scalar_a")
_BCAST_B = ("row_b", "row_b_col_a", "col_b", "scalar_b")
# IR ops whose op config pre-processes both inputs (LOGICAL_* -> NEZ on lhs and rhs).
_PROCESS_BOTH = ("logical_and", "logical_or", "logical_xor")
_INT = ("si32", "u32", "u16")
# Bitwise ops and shifts accept integer inputs only (binary_ng validate, dtype_policy::is_supported).
_INT_ONLY = ("bitwise_and", "bitwise_or", "bitwise_xor", "logical_left_shift", "logical_right_shift")


def _hw(shape: tuple[int, ...]) -> tuple[int, int]:
    h = shape[-2] if len(shape) >= 2 else 1
    w = shape[-1] if shape else 1
    return h, w


def subtile_broadcast(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> str:
    """``get_subtile_broadcast_type`` on the logical last two dims (binary_ng_device_operation.cpp).

    Returns one of ``none``, ``scalar_a``, ``scalar_b``, ``row_a_col_b``,
    ``row_b_col_a``, ``row_a``, ``col_a``, ``row_b``, ``col_b``.

    Raises:
        CBModelError: no broadcast pattern (the op's TT_THROW).
    """
    (ah, aw), (bh, bw) = _hw(a_shape), _hw(b_shape)
    if ah == bh and aw == bw:
        return "none"
    if ah == 1 and aw == 1:
        return "scalar_a"
    if bh == 1 and bw == 1:
        return "scalar_b"
    if ah == 1 and bw == 1:
        return "row_a_col_b"
    if aw == 1 and bh == 1:
        return "row_b_col_a"
    if ah == 1:
        return "row_a"
    if aw == 1:
        return "col_a"
    if bh == 1:
        return "row_b"
    if bw == 1:
        return "col_b"
    raise CBModelError(f"no subtile broadcast between {list(a_shape)} and {list(b_shape)}")


def binary_is_sfpu(op: str, a_dtype: str, b_dtype: str) -> bool:
    """Whether binary_ng runs the op on the SFPU (``is_binary_sfpu_op``) as ttnn 0.81.1 does.

    ``divide`` (called without fast-and-approximate mode), ``maximum``,
    ``minimum``, ``remainder``, ``pow_tensor``, ``atan2``, the bitwise ops and
    the shifts are SFPU ops; ``add``, ``subtract`` and the logical ops are SFPU
    only for equal f32/integer inputs; ``multiply`` and the comparisons also for
    equal bf16 inputs.  The source read (b0fb323a) keeps bf16 multiply and
    comparisons on the FPU; measured on mock P150, ttnn 0.81.1, their fused
    activation CB holds 2 tiles (the SFPU multi-tile cycle) for bf16 and 8
    (FPU) for bfloat8_b.
    """
    same = a_dtype == b_dtype
    if op in ("add", "subtract") + _PROCESS_BOTH:
        return same and a_dtype in ("f32",) + _INT
    if op in ("multiply", "eq", "ne", "gt", "ge", "lt", "le"):
        return same and a_dtype in ("f32", "bf16") + _INT
    return True


def binary_native_sharding(a: Tensor, b: Tensor, c: Tensor, bcast: str) -> bool:
    """Whether binary_ng takes its native L1-sharded path (CBs backed by the sharded tensors).

    Measured on mock P150, ttnn 0.81.1 (the stored sources disagree, see the
    module docstring); the output must be L1-sharded, then either

    * ``a`` and ``b`` have the same logical shape and the same memory config, all
      three tensors are in L1, and every sharded one is on the output's grid
      (uneven shards included); or
    * ``a`` is evenly height-sharded with the output's memory config, ``b`` is
      interleaved (DRAM or L1) and broadcast by column or as a scalar
      (``col_b`` / ``scalar_b``).

    Everything else (row or outer-dim broadcast of an interleaved ``b``, block
    or width sharding with an interleaved ``b``, ``b`` sharded with another
    shard shape, a sharded ``b`` with an interleaved ``a``, an interleaved or
    differently-gridded output) is read and written through the interleaved path.
    """
    if not (c.sharded and c.l1):
        return False
    if a.shape == b.shape and a.mem == b.mem:
        if not (a.l1 and b.l1):
            return False
        return all(same_grid(t, c) for t in (a, b) if t.sharded)
    return (a.sharded and a.l1 and a.memory_layout == "height_sharded" and not b.sharded and bcast in ("col_b", "scalar_b")
            and a.mem == c.mem and a.shape == c.shape and not is_uneven(a))


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class BinaryCall:
    """What the binary_ng factory reads of one IR binary op.

    Attributes:
        op: the IR op's short name (``add``, ``multiply``...).
        lhs_activations / rhs_activations: the IR's ``input_tensor_a_activations``
            / ``input_tensor_b_activations``.  Post-activations (``activations``)
            run in the destination registers and add no CB.
    """

    op: str
    lhs_activations: tuple[UnaryWithParam, ...] = ()
    rhs_activations: tuple[UnaryWithParam, ...] = ()


def binary_program(call: BinaryCall, a: Tensor, b: Tensor, c: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """BinaryNgDeviceOperation::ProgramFactory of ``c = a op b``.

    CBs, all on the whole grid, in creation order:

    * ``c_0`` a: 2 tiles, or a's shard (backed by a) on the native sharded path;
    * ``c_3`` lhs activation: ``cycle`` tiles of a's format, when a has fused
      activations (the IR's ``input_tensor_a_activations``, or the op's own
      pre-processing: NEZ for the logical ops);
    * ``c_1`` b: 2 tiles, or b's shard;
    * ``c_4`` rhs activation: ``cycle`` tiles of b's format, likewise;
    * ``c_5`` 2 tiles of a (a broadcast: row_a, row_a_col_b, col_a, scalar_a) or
      ``c_6`` 2 tiles of b (row_b, row_b_col_a, col_b, scalar_b);
    * ``c_2`` c: 2 tiles, or c's shard.

    ``cycle`` (num_tiles_per_cycle) is 8 (FPU) or 2 (SFPU) when a, b and c are
    all natively sharded without subtile broadcast, else 1.  Post-activations
    (IR ``activations``, comparisons' postprocess, the typecast when c's dtype
    differs) run in the destination registers: no CB.

    Raises:
        DeviceRejection: dtypes the op rejects (bitwise ops and shifts of
            non-integer tensors, ``pow_tensor``/``atan2`` of integer tensors:
            TT_FATAL on the mock); a sharded output whose shard is not tile sized.

    Measured on mock P150, ttnn 0.81.1: [1,128,768] * [1,128,1] with rsqrt on b
    (DRAM): 4,096 + 4,096 + 2,048 + 4,096 + 4,096 B; [1,8,128,128] + [1,8,128,1],
    a and c height-sharded [32,128] on 32 cores, b in L1: 8,192 (a, backed) +
    4,096 + 4,096 + 8,192 (c, backed) B.
    """
    if call.op in _INT_ONLY and a.dtype.name not in _INT:
        raise DeviceRejection(f"{call.op} of {a.dtype} fails validation (TT_FATAL: dtype not supported for the binary op)")
    if call.op in ("pow_tensor", "atan2") and a.dtype.name in _INT:
        raise DeviceRejection(f"{call.op} of {a.dtype} fails validation (TT_FATAL: integer inputs not supported)")
    if c.sharded and (c.shard.shape[0] % TILE or c.shard.shape[1] % TILE):
        # binary_ng's output spec is TILE at d80d9482 even for row-major inputs, with the sharded memory config
        # it is given; TensorLayout's shard check (tt_metal/impl/tensor/spec/layout/tensor_layout.cpp:171)
        # refuses a physical shard that is not tile sized (measured: opdiff campaign, row-major sharded
        # operands of add, lt, maximum, logical_and, bitwise_*; e.g. g1/ttnn.bitwise_xor/9)
        raise DeviceRejection(f"{call.op}: Physical shard shape {tuple(c.shard.shape)} must be tile {{32, 32}} "
                              "sized (TT_FATAL: the binary op's output is tiled)")
    cores = full_grid(grid)
    bcast = subtile_broadcast(a.shape, b.shape)
    native = binary_native_sharding(a, b, c, bcast)
    sfpu = binary_is_sfpu(call.op, a.dtype.name, b.dtype.name)
    lhs = bool(call.lhs_activations) or call.op in _PROCESS_BOTH
    rhs = bool(call.rhs_activations) or call.op in _PROCESS_BOTH
    all_sharded = native and a.sharded and b.sharded and c.sharded
    cycle = (2 if sfpu else 8) if all_sharded and bcast == "none" else 1
    ta, tb, tc = a.tile_bytes, b.tile_bytes, c.tile_bytes
    a_native, b_native, c_native = native and a.sharded, native and b.sharded, native and c.sharded
    cbs = [CB(0, "a", ta, a.shard.tiles if a_native else 2, cores, a_native)]
    if lhs:
        cbs.append(CB(3, "lhs_activation", ta, cycle, cores))
    cbs.append(CB(1, "b", tb, b.shard.tiles if b_native else 2, cores, b_native))
    if rhs:
        cbs.append(CB(4, "rhs_activation", tb, cycle, cores))
    if bcast in _BCAST_A:
        cbs.append(CB(5, "a_broadcast", ta, 2, cores))
    if bcast in _BCAST_B:
        cbs.append(CB(6, "b_broadcast", tb, 2, cores))
    cbs.append(CB(2, "c", tc, c.shard.tiles if c_native else 2, cores, c_native))
    notes = [f"subtile broadcast {bcast}; {'SFPU' if sfpu else 'FPU'} op"
             + ("; native L1 sharding (sharded CBs are the tensors' shards)" if native else "; interleaved path")
             + (f"; {cycle}-tile activation cycle" if (lhs or rhs) else "")]
    return ProgramModel("BinaryNgDeviceOperation::ProgramFactory", _BNG_SRC, cores, cbs, notes)


def _activations(op: Op, name: str) -> tuple[UnaryWithParam, ...]:
    value = op.attrs.get(name) or []
    if not isinstance(value, list) or not all(isinstance(v, UnaryWithParam) for v in value):
        raise CBModelError(f"{op.name}: '{name}' is not a list of #ttnn.unary_with_param")
    return tuple(value)


@register_cb(tuple(f"ttnn.{n}" for n in BINARY))
def binary_cb(ctx: CBContext) -> ProgramModel:
    """CB model of the IR binary ops: :func:`binary_program`.

    Raises:
        CBModelError: an operand is not a device tensor, or the shapes have no
            subtile broadcast pattern.
    """
    op = ctx.op
    a, b, c = operand(ctx, 0), operand(ctx, 1), result(ctx)
    _activations(op, "activations")  # validated; post-activations need no CB
    call = BinaryCall(op.short_name, _activations(op, "input_tensor_a_activations"),
                      _activations(op, "input_tensor_b_activations"))
    return binary_program(call, a, b, c, ctx.grid)


# ---------------------------------------------------------------------------
# Ternary (where, three tensors)
# ---------------------------------------------------------------------------


def ternary_broadcast(p: tuple[int, ...], t: tuple[int, ...], f: tuple[int, ...]) -> str:
    """``get_broadcast_type`` of a TTT where (ternary_op_utils.cpp): none, outer, row, col or scalar.

    Raises:
        CBModelError: INVALID_BCAST (no supported pattern).
    """
    if p == t == f:
        return "none"
    (ph, pw), (th, tw), (fh, fw) = _hw(p), _hw(t), _hw(f)
    same_w = pw == tw == fw
    same_h = ph == th == fh
    if same_h and same_w:
        return "outer"
    if not same_h and not same_w:
        mh, mw = max(ph, th, fh), max(pw, tw, fw)
        if all((h == mh and w == mw) or (h == 1 and w == 1) for h, w in ((ph, pw), (th, tw), (fh, fw))):
            return "scalar"
        raise CBModelError(f"where: no broadcast pattern for {list(p)}, {list(t)}, {list(f)}")
    if not same_h and max(ph, th, fh) > 1 and 1 in (ph, th, fh) and same_w:
        return "row"
    if not same_w and max(pw, tw, fw) > 1 and 1 in (pw, tw, fw) and same_h:
        return "col"
    raise CBModelError(f"where: no broadcast pattern for {list(p)}, {list(t)}, {list(f)}")


def ternary_native_sharding(p: Tensor, t: Tensor, f: Tensor, out: Tensor) -> bool:
    """TTT native L1 sharding: same shapes and memory configs, all L1, output sharded, nothing uneven."""
    return (out.sharded and p.shape == t.shape == f.shape and p.mem == t.mem and p.mem == f.mem
            and not any(is_uneven(x) for x in (p, t, f, out)) and all(x.l1 for x in (p, t, f, out))
            and any(x.sharded for x in (p, t, f, out)))


def where_program(p: Tensor, t: Tensor, f: Tensor, out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """TernaryDeviceOperation (TTT where): ``c_0`` predicate, ``c_1`` true, ``c_2`` false, ``c_3`` output.

    2 tiles each (or the shard on the native sharded path); a row broadcast adds
    ``c_4``/``c_5``/``c_6``, 2 tiles of the predicate/true/false formats.
    Measured on mock P150, ttnn 0.81.1: [1,1,64,128] bf16 4 x 4,096 B; predicate
    [1,1,1,128] row-broadcast 7 x 4,096 B; column and scalar broadcasts 4 CBs.
    """
    cores = full_grid(grid)
    kind = ternary_broadcast(p.shape, t.shape, f.shape)
    native = ternary_native_sharding(p, t, f, out)
    cbs = []
    for i, (name, x) in enumerate((("predicate", p), ("true", t), ("false", f))):
        backed = native and x.sharded
        cbs.append(CB(i, name, x.tile_bytes, x.shard.tiles if backed else 2, cores, backed))
    if kind == "row":
        cbs += [CB(4, "predicate_row", p.tile_bytes, 2, cores), CB(5, "true_row", t.tile_bytes, 2, cores),
                CB(6, "false_row", f.tile_bytes, 2, cores)]
    backed = native and out.sharded
    cbs.append(CB(3, "output", out.tile_bytes, out.shard.tiles if backed else 2, cores, backed))
    return ProgramModel("TernaryDeviceOperation::TernaryProgramFactory", _TERNARY_SRC, cores, cbs,
                        [f"TTT where, broadcast {kind}" + ("; native L1 sharding" if native else "")])


@register_cb("ttnn.where")
def where_cb(ctx: CBContext) -> ProgramModel:
    """CB model of ``ttnn.where`` with three tensors: :func:`where_program`."""
    op = ctx.op
    if len(op.operands) != 3 or not all(v.is_tensor for v in op.operands):
        raise CBModelError("ttnn.where with scalar operands runs binary_ng / unary programs, not modeled")
    return where_program(operand(ctx, 0), operand(ctx, 1), operand(ctx, 2), result(ctx), ctx.grid)
