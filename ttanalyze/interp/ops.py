"""Reference semantics of TTNN IR ops, in numpy: a registry keyed by op name.

Each entry maps an op's operand values (numpy arrays holding the logical
tensors, see :mod:`ttanalyze.interp.numerics`) and its typed attributes
(``Op.attrs``, read with the shape rules' helpers of
:mod:`ttanalyze.ops.registry`) to its result values.  The functions compute in
float64 (integers in int64) and return unrounded values; the interpreter
(:mod:`ttanalyze.interp.run`) then rounds every result to its declared data
type, once per op, as the device writes it.  Intermediate rounding inside an op
(the device's accumulation order, bf16 scalers, SFPU approximations) is not
emulated unless a function says so: a reduction, a matmul or a normalization is
exact, then rounded once.  The exceptions follow the device's data path where
it stores an intermediate tensor: a binary op's input activations are written
to a circular buffer in the input's format (rounded to the input's data type),
and conv2d weights are converted to ``conv2d_config.weights_dtype``.

Semantics follow the tt-metal / tt-mlir sources named on each function; where a
choice was made (tie orders, unspecified values) the function says which and why.
An op without an entry raises :class:`~ttanalyze.interp.numerics.InterpError`;
nothing is skipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..ir.attrs import StructAttr, UnaryWithParam
from ..ir.model import Op
from ..ops.conv import out_size, upsample_scale
from ..ops.eltwise import BINARY, UNARY
from ..ops.registry import ShapeError, int_attr, int_list, norm_dim
from .numerics import INT_TYPES, InterpError, dtype_of, quantize


class Device:
    """The value of ``!ttnn.device`` results and operands (no data)."""

    def __repr__(self) -> str:
        return "<device>"


DEVICE = Device()


@dataclass
class Ctx:
    """One op being interpreted: the op, its operand values, and a way to call functions.

    Attributes:
        op: the op.
        args: one entry per operand: a numpy array for tensors, :data:`DEVICE` otherwise.
        call: ``call(func_name, args) -> results``: runs another function of the
            program (``ttcore.load_cached``).
        path: the program's file, for error positions.
    """

    op: Op
    args: list[Any]
    call: Callable[[str, list[Any]], list[Any]]
    path: str = "<string>"

    def error(self, message: str) -> InterpError:
        """An InterpError at this op: ``file:line:col: error: <op name>: message``."""
        return InterpError(f"{self.op.name}: {message}", self.path, self.op.pos)

    def tensor(self, i: int) -> np.ndarray:
        """Operand ``i`` as stored (float32 / integer storage type).

        Raises:
            InterpError: the operand is missing or not a tensor.
        """
        if i >= len(self.args) or not isinstance(self.args[i], np.ndarray):
            raise self.error(f"expects a tensor operand #{i}")
        return self.args[i]

    def f64(self, i: int) -> np.ndarray:
        """Operand ``i`` as float64."""
        return self.tensor(i).astype(np.float64)

    def tensors(self) -> list[np.ndarray]:
        """The tensor operands, in order (device operands left out)."""
        return [a for a in self.args if isinstance(a, np.ndarray)]

    def dtype(self, i: int) -> str:
        """The tt data type of operand ``i``."""
        return dtype_of(self.op.operands[i].type)

    def out_dtype(self, i: int = 0) -> str:
        """The declared tt data type of result ``i``."""
        return dtype_of(self.op.results[i].type)

    def float_attr(self, name: str, default: float | None = None) -> float:
        """A float (or integer) attribute, or ``default`` when absent.

        Raises:
            InterpError: absent without a default, or not a number.
        """
        value = self.op.attrs.get(name, default)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise self.error(f"needs a numeric attribute '{name}'")

    def bool_attr(self, name: str, default: bool) -> bool:
        value = self.op.attrs.get(name, default)
        if not isinstance(value, bool):
            raise self.error(f"attribute '{name}' must be a boolean")
        return value


SemanticsFn = Callable[[Ctx], list[Any]]


@dataclass(frozen=True)
class Semantics:
    """The reference semantics of one op.

    Attributes:
        name: the op name.
        fn: operand values -> result values (one per result, :data:`DEVICE` for non-tensor results).
        moves_data: the op does no arithmetic: it moves, copies or selects
            values (reshape, permute, slice, concat, layout and memory
            conversions, embedding...) or creates constants (full, arange).
            Its results are input values or constants, changed only by the
            rounding to the result's data type (a ``typecast`` to a narrower
            type, or a reshape of a block-float tensor, can still change them).
        source: the tt-metal / tt-mlir source the semantics follow.
    """

    name: str
    fn: SemanticsFn
    moves_data: bool
    source: str


SEMANTICS: dict[str, Semantics] = {}


def semantics(names: str | tuple[str, ...], moves_data: bool = False, source: str = ""):
    """Decorator: register ``fn`` as the reference semantics of every op in ``names``."""
    if isinstance(names, str):
        names = (names,)

    def wrap(fn: SemanticsFn) -> SemanticsFn:
        for name in names:
            if name in SEMANTICS:
                raise RuntimeError(f"reference semantics of {name} registered twice")
            SEMANTICS[name] = Semantics(name, fn, moves_data, source)
        return fn

    return wrap


def lookup(name: str) -> Semantics | None:
    """The semantics of op ``name``, or None when the interpreter has none."""
    return SEMANTICS.get(name)


def moves_data(name: str) -> bool:
    """Whether op ``name`` only moves values (outputs must be identical across equivalent programs)."""
    sem = SEMANTICS.get(name)
    return bool(sem and sem.moves_data)


_TTNN = "tt-mlir include/ttmlir/Dialect/TTNN/IR/TTNNOps.td @19c86fca"
_RT = "tt-mlir runtime/lib/ttnn/operations @19c86fca"

# ---------------------------------------------------------------------------
# Unary functions (IR unary ops and #ttnn.unary_with_param activations)
# ---------------------------------------------------------------------------

_erf_scalar = np.vectorize(math.erf, otypes=[np.float64])


def erf(x: np.ndarray) -> np.ndarray:
    """The error function in double precision (``math.erf`` per element; numpy has none)."""
    x = np.asarray(x, dtype=np.float64)
    return _erf_scalar(x) if x.size else x.copy()


def _p(params: tuple[float, ...], i: int, default: float) -> float:
    return params[i] if len(params) > i else default


def _gelu(x: np.ndarray, params: tuple[float, ...]) -> np.ndarray:
    """GELU.  The erf form ``x/2 (1 + erf(x / sqrt 2))`` unless a first parameter asks for the fast
    approximation (the tanh form).  tt-mlir's runtime calls ``ttnn::gelu(in, /*fast_and_approximate_mode=*/false)``
    for the IR op (runtime/lib/ttnn/operations/eltwise/unary/unary.cpp @19c86fca), so ``ttnn.gelu`` is the
    erf form; a ``#ttnn.unary_with_param<op_type = gelu, params = [1.0]>`` activation is the tanh form."""
    if params and params[0]:
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _softplus(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    bx = beta * x
    return np.where(bx > threshold, x, np.logaddexp(0.0, bx) / beta)


def _b(mask: np.ndarray) -> np.ndarray:
    return mask.astype(np.float64)


UnaryFn = Callable[[np.ndarray, tuple[float, ...]], np.ndarray]

# name -> f(x, params).  Names are the IR unary ops (ops/eltwise.py UNARY) and tt-mlir's
# TTNN_UnaryOpType spellings (TTNNOpsEnums.td @19c86fca), which #ttnn.unary_with_param uses.
UNARY_FUNCS: dict[str, UnaryFn] = {
    "abs": lambda x, p: np.abs(x),
    "abs_int32": lambda x, p: np.abs(x),
    "cbrt": lambda x, p: np.cbrt(x),
    "ceil": lambda x, p: np.ceil(x),
    "floor": lambda x, p: np.floor(x),
    "round": lambda x, p: np.round(x, int(_p(p, 0, 0))),
    "sign": lambda x, p: np.sign(x),
    "signbit": lambda x, p: _b(np.signbit(x)),
    "cos": lambda x, p: np.cos(x),
    "sin": lambda x, p: np.sin(x),
    "tan": lambda x, p: np.tan(x),
    "acos": lambda x, p: np.arccos(x),
    "asin": lambda x, p: np.arcsin(x),
    "atan": lambda x, p: np.arctan(x),
    "asinh": lambda x, p: np.arcsinh(x),
    "tanh": lambda x, p: np.tanh(x),
    "exp": lambda x, p: np.exp(x),
    "exp2": lambda x, p: np.exp2(x),
    "expm1": lambda x, p: np.expm1(x),
    "log": lambda x, p: np.log(x),
    "log2": lambda x, p: np.log2(x),
    "log10": lambda x, p: np.log10(x),
    "log1p": lambda x, p: np.log1p(x),
    "erf": lambda x, p: erf(x),
    "erfc": lambda x, p: 1.0 - erf(x),
    "gelu": _gelu,
    "isfinite": lambda x, p: _b(np.isfinite(x)),
    "is_finite": lambda x, p: _b(np.isfinite(x)),
    "is_inf": lambda x, p: _b(np.isinf(x)),
    "is_pos_inf": lambda x, p: _b(np.isposinf(x)),
    "is_neg_inf": lambda x, p: _b(np.isneginf(x)),
    "is_nan": lambda x, p: _b(np.isnan(x)),
    "logical_not": lambda x, p: _b(x == 0),
    "logical_not_unary": lambda x, p: _b(x == 0),
    "eqz": lambda x, p: _b(x == 0),
    "nez": lambda x, p: _b(x != 0),
    "gtz": lambda x, p: _b(x > 0),
    "ltz": lambda x, p: _b(x < 0),
    "gez": lambda x, p: _b(x >= 0),
    "lez": lambda x, p: _b(x <= 0),
    "neg": lambda x, p: -x,
    "reciprocal": lambda x, p: 1.0 / x,
    "recip": lambda x, p: 1.0 / x,
    "relu": lambda x, p: np.maximum(x, 0.0),
    "relu6": lambda x, p: np.clip(x, 0.0, 6.0),
    "relu_max": lambda x, p: np.minimum(np.maximum(x, 0.0), _p(p, 0, np.inf)),
    "relu_min": lambda x, p: np.maximum(x, _p(p, 0, 0.0)),
    "sqrt": lambda x, p: np.sqrt(x),
    "rsqrt": lambda x, p: 1.0 / np.sqrt(x),
    "square": lambda x, p: x * x,
    "power": lambda x, p: np.power(x, _p(p, 0, 1.0)),
    "sigmoid": lambda x, p: _sigmoid(x),
    "hardsigmoid": lambda x, p: np.clip(x / 6.0 + 0.5, 0.0, 1.0),
    "silu": lambda x, p: x * _sigmoid(x),
    "mish": lambda x, p: x * np.tanh(_softplus(x)),
    "soft_plus": lambda x, p: _softplus(x, _p(p, 0, 1.0), _p(p, 1, 20.0)),
    "leaky_relu": lambda x, p: np.where(x >= 0, x, x * _p(p, 0, 0.01)),
    "elu": lambda x, p: np.where(x > 0, x, _p(p, 0, 1.0) * np.expm1(x)),
    "heaviside": lambda x, p: np.where(x > 0, 1.0, np.where(x == 0, _p(p, 0, 0.0), 0.0)),
    "add_unary_sfpu": lambda x, p: x + _p(p, 0, 0.0),
    "sub_unary_sfpu": lambda x, p: x - _p(p, 0, 0.0),
    "mul_unary_sfpu": lambda x, p: x * _p(p, 0, 1.0),
    "div_unary_sfpu": lambda x, p: x / _p(p, 0, 1.0),
    "rsub": lambda x, p: _p(p, 0, 0.0) - x,
    "rdiv": lambda x, p: _p(p, 0, 1.0) / x,
    "unary_ne": lambda x, p: _b(x != _p(p, 0, 0.0)),
    "unary_gt": lambda x, p: _b(x > _p(p, 0, 0.0)),
    "unary_lt": lambda x, p: _b(x < _p(p, 0, 0.0)),
    "remainder": lambda x, p: np.mod(x, _p(p, 0, 1.0)),
    "fmod": lambda x, p: np.fmod(x, _p(p, 0, 1.0)),
    "fill": lambda x, p: np.full_like(x, _p(p, 0, 0.0)),
    "identity": lambda x, p: x,
    "identity_uint32": lambda x, p: x,
    "i0": lambda x, p: np.i0(x),
}


def apply_unary(ctx: Ctx, name: str, x: np.ndarray, params: tuple[float, ...] = ()) -> np.ndarray:
    """``name`` (a :data:`UNARY_FUNCS` key) applied to float64 values ``x``.

    Raises:
        InterpError: a unary op type without semantics.
    """
    fn = UNARY_FUNCS.get(name)
    if fn is None:
        raise ctx.error(f"unary op type '{name}' has no reference semantics")
    with np.errstate(all="ignore"):
        return np.asarray(fn(np.asarray(x, dtype=np.float64), tuple(params)), dtype=np.float64)


def _activations(ctx: Ctx, name: str) -> list[UnaryWithParam]:
    value = ctx.op.attrs.get(name) or []
    if not isinstance(value, list) or not all(isinstance(v, UnaryWithParam) for v in value):
        raise ctx.error(f"'{name}' is not a list of #ttnn.unary_with_param")
    return value


def _chain(ctx: Ctx, x: np.ndarray, acts: list[UnaryWithParam]) -> np.ndarray:
    for act in acts:
        x = apply_unary(ctx, act.op_type, x, act.params)
    return x


# ---------------------------------------------------------------------------
# Device, memory, creation, layout
# ---------------------------------------------------------------------------


@semantics("ttnn.get_device", source=f"{_TTNN} GetDeviceOp")
def _get_device(ctx: Ctx):
    return [DEVICE]


@semantics("ttnn.deallocate", source=f"{_TTNN} DeallocateOp")
def _deallocate(ctx: Ctx):
    """No results; the interpreter forgets the operand's value, and a later use of it is an error."""
    ctx.tensor(0)
    return []


@semantics(("ttnn.to_layout", "ttnn.to_memory_config", "ttnn.to_device", "ttnn.from_device", "ttnn.typecast",
            "ttnn.to_dtype"), moves_data=True,
           source=f"{_TTNN} ToLayoutOp/ToMemoryConfigOp/ToDeviceOp/FromDeviceOp/TypecastOp")
def _identity(ctx: Ctx):
    """Layout, memory and placement conversions keep the logical values; a data type change
    (the result's declared type; ``typecast``, ``to_layout`` with a dtype) is the interpreter's rounding."""
    return [ctx.tensor(0)]


@semantics(("ttnn.full", "ttnn.zeros", "ttnn.ones", "ttnn.empty"), moves_data=True, source=f"{_TTNN} FullOp/EmptyOp")
def _full(ctx: Ctx):
    """``full`` fills with ``fill_value``; ``zeros``/``ones`` with 0/1.  ``empty`` allocates without
    writing: its contents are whatever the buffer held; the interpreter chooses zeros (deterministic)."""
    shape = tuple(int_list(ctx.op, "shape"))
    name = ctx.op.short_name
    value = {"zeros": 0.0, "ones": 1.0, "empty": 0.0}.get(name)
    if value is None:
        value = ctx.float_attr("fill_value")
    return [np.full(shape, value, dtype=np.float64)]


@semantics("ttnn.arange", moves_data=True, source=f"{_TTNN} ArangeOp")
def _arange(ctx: Ctx):
    return [np.arange(int_attr(ctx.op, "start"), int_attr(ctx.op, "end"), int_attr(ctx.op, "step"), dtype=np.int64)]


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------


@semantics("ttnn.reshape", moves_data=True, source=f"{_TTNN} ReshapeOp (row-major order of the logical tensor)")
def _reshape(ctx: Ctx):
    return [ctx.tensor(0).reshape(tuple(int_list(ctx.op, "shape")))]


@semantics("ttnn.permute", moves_data=True, source=f"{_TTNN} PermuteOp")
def _permute(ctx: Ctx):
    return [np.ascontiguousarray(np.transpose(ctx.tensor(0), int_list(ctx.op, "permutation")))]


@semantics("ttnn.transpose", moves_data=True, source=f"{_TTNN} TransposeOp")
def _transpose(ctx: Ctx):
    x = ctx.tensor(0)
    a = norm_dim(int_attr(ctx.op, "dim0"), x.ndim, ctx.op)
    b = norm_dim(int_attr(ctx.op, "dim1"), x.ndim, ctx.op)
    return [np.ascontiguousarray(np.swapaxes(x, a, b))]


@semantics("ttnn.slice_static", moves_data=True, source=f"{_TTNN} SliceStaticOp (negative indices count from the end)")
def _slice(ctx: Ctx):
    x = ctx.tensor(0)
    begins, ends, steps = int_list(ctx.op, "begins"), int_list(ctx.op, "ends"), int_list(ctx.op, "step")
    if not len(begins) == len(ends) == len(steps) == x.ndim:
        raise ctx.error(f"begins/ends/step must have {x.ndim} entries each")
    index = []
    for size, b, e, s in zip(x.shape, begins, ends, steps):
        if s == 0:
            raise ctx.error("slice step is zero")
        index.append(slice(b + size if b < 0 else b, e + size if e < 0 else e, s))
    return [np.ascontiguousarray(x[tuple(index)])]


@semantics("ttnn.concat", moves_data=True, source=f"{_TTNN} ConcatOp")
def _concat(ctx: Ctx):
    xs = ctx.tensors()
    dim = norm_dim(int_attr(ctx.op, "dim"), xs[0].ndim, ctx.op)
    common = np.result_type(*xs)
    return [np.concatenate([x.astype(common, copy=False) for x in xs], axis=dim)]


@semantics("ttnn.pad", moves_data=True, source=f"{_TTNN} PadOp (padding = [low0, high0, low1, high1, ...])")
def _pad(ctx: Ctx):
    x = ctx.tensor(0)
    padding = int_list(ctx.op, "padding")
    if len(padding) != 2 * x.ndim:
        raise ctx.error(f"needs {2 * x.ndim} padding values, got {len(padding)}")
    if any(p < 0 for p in padding):
        raise ctx.error(f"negative padding {padding}")
    value = ctx.float_attr("value", 0.0)
    pads = [(padding[2 * i], padding[2 * i + 1]) for i in range(x.ndim)]
    return [np.pad(x.astype(np.float64), pads, constant_values=value)]


@semantics("ttnn.repeat", moves_data=True, source=f"{_TTNN} RepeatOp (numpy tile)")
def _repeat(ctx: Ctx):
    return [np.tile(ctx.tensor(0), int_list(ctx.op, "repeat_dims"))]


@semantics("ttnn.repeat_interleave", moves_data=True, source=f"{_TTNN} RepeatInterleaveOp")
def _repeat_interleave(ctx: Ctx):
    x = ctx.tensor(0)
    return [np.repeat(x, int_attr(ctx.op, "repeats"), axis=norm_dim(int_attr(ctx.op, "dim"), x.ndim, ctx.op))]


@semantics("ttnn.embedding", moves_data=True, source=f"{_TTNN} EmbeddingOp (result = weight rows at the indices)")
def _embedding(ctx: Ctx):
    """``out[..., :] = weight2d[indices[...], :]`` with the weight flattened to ``[rows, E]``.

    An index outside ``[0, rows)`` reads memory the program does not own on the
    device; the interpreter refuses it.
    """
    idx, weight = ctx.tensor(0), ctx.tensor(1)
    if idx.dtype.kind == "f":
        if not np.all(np.isfinite(idx)) or np.any(idx != np.round(idx)):
            raise ctx.error("embedding indices are not integers")
    idx = idx.astype(np.int64)
    table = weight.reshape(-1, weight.shape[-1])
    if idx.size and (idx.min() < 0 or idx.max() >= table.shape[0]):
        raise ctx.error(f"embedding index out of range [0, {table.shape[0]}): min {idx.min()}, max {idx.max()}")
    return [table[idx]]


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------


@semantics(tuple(f"ttnn.{n}" for n in UNARY if n not in ("bitwise_not", "leaky_relu", "clamp_scalar")),
           source=f"{_TTNN} TTNN_ElementwiseUnaryOp; {_RT}/eltwise/unary/unary.cpp (gelu: accurate erf form)")
def _unary(ctx: Ctx):
    """The op's :data:`UNARY_FUNCS` entry on float64 values, then rounded to the result type."""
    return [apply_unary(ctx, ctx.op.short_name, ctx.f64(0))]


@semantics("ttnn.leaky_relu", source=f"{_TTNN} LeakyReluOp (parameter = negative slope)")
def _leaky_relu(ctx: Ctx):
    return [apply_unary(ctx, "leaky_relu", ctx.f64(0), (ctx.float_attr("parameter"),))]


@semantics("ttnn.bitwise_not", source=f"{_TTNN} BitwiseNotOp (integer tensors)")
def _bitwise_not(ctx: Ctx):
    x = ctx.tensor(0)
    if x.dtype.kind not in "iu":
        raise ctx.error(f"bitwise_not of a {ctx.dtype(0)} tensor (integers only)")
    return [np.invert(x)]


@semantics("ttnn.clamp_scalar", source=f"{_TTNN} ClampScalarOp")
def _clamp_scalar(ctx: Ctx):
    return [np.minimum(np.maximum(ctx.f64(0), ctx.float_attr("min")), ctx.float_attr("max"))]


@semantics("ttnn.clamp_tensor", source=f"{_TTNN} ClampTensorOp")
def _clamp_tensor(ctx: Ctx):
    return [np.minimum(np.maximum(ctx.f64(0), ctx.f64(1)), ctx.f64(2))]


@semantics("ttnn.pow_scalar", source=f"{_TTNN} PowScalarOp (rhs = exponent)")
def _pow_scalar(ctx: Ctx):
    exponent = ctx.float_attr("rhs") if "rhs" in ctx.op.attrs else ctx.float_attr("exponent")
    with np.errstate(all="ignore"):
        return [np.power(ctx.f64(0), exponent)]


_CMP = {"eq": np.equal, "ne": np.not_equal, "ge": np.greater_equal, "gt": np.greater,
        "le": np.less_equal, "lt": np.less}
_LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}
_BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}
_INT_BITS = {"si32": 32, "u32": 32, "u16": 16, "u8": 8, "i1": 8}


def _wrap(v: np.ndarray, dtype: str) -> np.ndarray:
    """int64 values wrapped to ``dtype``'s width (two's complement), as the device's integer ALU does."""
    bits = _INT_BITS[dtype]
    v = v & ((1 << bits) - 1)
    if dtype == "si32":
        v = np.where(v >= 1 << 31, v - (1 << 32), v)
    return v


def binary_values(ctx: Ctx, name: str, a: np.ndarray, b: np.ndarray, out_dtype: str) -> np.ndarray:
    """``a <name> b`` with numpy broadcasting (the IR's ``getBroadcastedShape``).

    Integer inputs with an integer result compute in int64 and wrap to the
    result's width (add, subtract, multiply, shifts, bitwise ops); everything
    else computes in float64.  Comparisons and logical ops give 1/0.
    ``divide`` is true division; ``remainder`` takes the divisor's sign (torch
    ``remainder``, what ttnn's remainder is tested against); ``atan2(a, b)`` is
    the angle of the vector ``(b, a)`` (ttnn 0.81.1's ``ttnn.atan2`` docstring:
    "arctangent of input_tensor_a / input_tensor_b"; tt-mlir's runtime passes
    lhs, rhs in order).  Shifts are logical: zeros shift in, and a count outside
    [0, 31] gives 0 (``ttnn.logical_right_shift`` docstring, ttnn 0.81.1).

    Raises:
        InterpError: bitwise ops or shifts of float tensors, unknown op.
    """
    ints = a.dtype.kind in "iu" and b.dtype.kind in "iu"
    int_out = out_dtype in INT_TYPES
    if name in _BITWISE or name in ("logical_left_shift", "logical_right_shift"):
        if not ints:
            raise ctx.error(f"{name} of float tensors (integers only)")
        a64, b64 = a.astype(np.int64), b.astype(np.int64)
        if name in _BITWISE:
            return _BITWISE[name](a64, b64)
        bits = _INT_BITS.get(out_dtype, 32)
        mask = (1 << bits) - 1
        count = np.clip(b64, 0, 63)
        shifted = ((a64 << count) & mask) if name == "logical_left_shift" else (a64 & mask) >> count
        shifted = np.where((b64 < 0) | (b64 > 31), 0, shifted)
        return _wrap(shifted, out_dtype) if int_out else shifted
    if ints and int_out and name in ("add", "subtract", "multiply", "maximum", "minimum", "remainder"):
        a64, b64 = a.astype(np.int64), b.astype(np.int64)
        fn = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
              "minimum": np.minimum}.get(name)
        if fn is not None:
            return _wrap(fn(a64, b64), out_dtype)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        if name in _CMP:
            return _b(_CMP[name](a64, b64))
        if name in _LOGICAL:
            return _b(_LOGICAL[name](a64 != 0, b64 != 0))
        fn = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.true_divide,
              "maximum": np.maximum, "minimum": np.minimum, "remainder": np.mod, "pow_tensor": np.power,
              "atan2": np.arctan2}.get(name)
        if fn is None:
            raise ctx.error(f"binary op '{name}' has no reference semantics")
        return fn(a64, b64)


@semantics(tuple(f"ttnn.{n}" for n in BINARY),
           source=f"{_TTNN} TTNN_ElementwiseBinaryOp; tt-metal eltwise/binary_ng (activations: c_3/c_4 CBs in the "
                  "input formats, post activations in the destination registers)")
def _binary(ctx: Ctx):
    """``activations(lhs_acts(a) <op> rhs_acts(b))``.

    ``input_tensor_a_activations``/``input_tensor_b_activations`` run on the
    inputs and are written to circular buffers in the inputs' formats
    (binary_ng's ``c_3``/``c_4``), so their results are rounded to the inputs'
    data types; ``activations`` run on the result in the destination
    registers, before the single rounding to the result type.
    """
    a, b = ctx.tensor(0), ctx.tensor(1)
    pre_a, pre_b = _activations(ctx, "input_tensor_a_activations"), _activations(ctx, "input_tensor_b_activations")
    if pre_a:
        a = quantize(_chain(ctx, a.astype(np.float64), pre_a), ctx.dtype(0))
    if pre_b:
        b = quantize(_chain(ctx, b.astype(np.float64), pre_b), ctx.dtype(1))
    out = binary_values(ctx, ctx.op.short_name, a, b, ctx.out_dtype())
    post = _activations(ctx, "activations")
    return [_chain(ctx, out.astype(np.float64), post) if post else out]


@semantics("ttnn.where", source=f"{_TTNN} WhereOp (predicate != 0 selects the true value)")
def _where(ctx: Ctx):
    pred = ctx.tensor(0)
    return [np.where(pred != 0, ctx.f64(1), ctx.f64(2))]


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def _reduce_dims(ctx: Ctx, attr: str, rank: int) -> tuple[int, ...] | None:
    dims = ctx.op.attrs.get(attr)
    if dims is None:
        return None
    if isinstance(dims, int) and not isinstance(dims, bool):
        return (norm_dim(dims, rank, ctx.op),)
    if isinstance(dims, list) and all(isinstance(d, int) for d in dims):
        return tuple(sorted({norm_dim(d, rank, ctx.op) for d in dims}))
    raise ctx.error(f"'{attr}' must be an integer or a list of integers")


@semantics(("ttnn.sum", "ttnn.mean", "ttnn.max", "ttnn.min", "ttnn.prod"),
           source=f"{_TTNN} TTNN_ReductionOp / ProdOp (dim_arg absent: all dims)")
def _reduction(ctx: Ctx):
    """Exact reduction over ``dim_arg`` (float64, or int64 for integer sums/products), rounded once.

    The device accumulates tile by tile in its destination registers (f32 with
    ``fp32_dest_acc_en``, else bf16) and ``mean`` multiplies the sum by a
    ``1/N`` scaler tile stored in the input's format; neither the order nor
    the scaler's rounding is emulated: the result is the exact mean of the
    stored inputs, rounded to the result type (at most a few bf16 ulps from
    the device for bf16 results).
    """
    x = ctx.tensor(0)
    dims = _reduce_dims(ctx, "dim_arg", x.ndim)
    keep = ctx.bool_attr("keep_dim", False)
    name = ctx.op.short_name
    if x.dtype.kind in "iu" and name in ("sum", "prod", "max", "min"):
        x = x.astype(np.int64)
    else:
        x = x.astype(np.float64)
    fn = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}[name]
    return [np.asarray(fn(x, axis=dims, keepdims=keep))]


@semantics("ttnn.argmax", source="tt-metal ttnn/cpp/ttnn/operations/reduction/argmax (first index of the maximum)")
def _argmax(ctx: Ctx):
    """Index of the maximum along ``dim`` (all dims flattened when absent).

    Ties: the first (lowest) index wins, as numpy's argmax; tt-metal's argmax
    kernels update their running maximum only on a strictly greater value.
    """
    x = ctx.tensor(0)  # argmax is exact on the stored values: no float64 copy of large inputs
    dim = ctx.op.attrs.get("dim")
    keep = ctx.bool_attr("keep_dim", False)
    if dim is None:
        idx = np.asarray(np.argmax(x))
        return [idx.reshape((1,) * x.ndim) if keep else idx]
    d = norm_dim(dim, x.ndim, ctx.op)
    return [np.asarray(np.argmax(x, axis=d, keepdims=keep))]


@semantics("ttnn.topk", source=f"{_TTNN} TopKOp (k, dim = -1, largest = true, sorted = false)")
def _topk(ctx: Ctx):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices.

    Order: values sorted (descending for ``largest``, ascending otherwise) also
    when ``sorted = false`` (tt-metal then leaves the order unspecified); equal
    values keep their input order (lowest index first, a stable sort).  tt-metal's
    bitonic sort does not promise an order among equal values, so indices of ties
    may differ from the device.
    """
    x = ctx.f64(0)
    k = int_attr(ctx.op, "k")
    d = norm_dim(ctx.op.attrs.get("dim", -1), x.ndim, ctx.op)
    if not 1 <= k <= x.shape[d]:
        raise ctx.error(f"k = {k} is not in [1, {x.shape[d]}]")
    largest = ctx.bool_attr("largest", True)
    moved = np.moveaxis(x, d, -1)
    order = np.argsort(-moved if largest else moved, axis=-1, kind="stable")[..., :k]
    values = np.take_along_axis(moved, order, axis=-1)
    return [np.moveaxis(values, -1, d), np.moveaxis(order, -1, d)]


# ---------------------------------------------------------------------------
# Normalizations
# ---------------------------------------------------------------------------


def _segments(ctx: Ctx, names: tuple[str, ...]) -> dict[str, np.ndarray | None]:
    """Operands by name for ops with optional operands (``operandSegmentSizes``, one entry per name)."""
    sizes = ctx.op.attrs.get("operandSegmentSizes")
    args = ctx.args
    if sizes is None:
        sizes = [1 if i < len(args) else 0 for i in range(len(names))]
    if not isinstance(sizes, list) or len(sizes) != len(names) or sum(sizes) != len(args):
        raise ctx.error(f"operandSegmentSizes {sizes} does not match {len(args)} operands ({', '.join(names)})")
    out, i = {}, 0
    for name, n in zip(names, sizes):
        out[name] = ctx.f64(i) if n else None
        i += n
    return out


def _affine(ctx: Ctx, y: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, width: int) -> np.ndarray:
    for what, t in (("weight", weight), ("bias", bias)):
        if t is None:
            continue
        if t.size != width:
            raise ctx.error(f"{what} of {t.size} elements does not match the normalized width {width}")
        y = y * t.reshape(width) if what == "weight" else y + t.reshape(width)
    return y


@semantics("ttnn.softmax", source=f"{_TTNN} SoftmaxOp (dimension)")
def _softmax(ctx: Ctx):
    """``exp(x - max) / sum(exp(x - max))`` along ``dimension``, exact (``numericStable`` changes only the device's
    rounding), rounded once."""
    x = ctx.f64(0)
    d = norm_dim(ctx.op.attrs.get("dimension", -1), x.ndim, ctx.op)
    e = np.exp(x - np.max(x, axis=d, keepdims=True))
    return [e / np.sum(e, axis=d, keepdims=True)]


@semantics(("ttnn.layer_norm", "ttnn.rms_norm"),
           source=f"{_TTNN} LayerNormOp/RMSNormOp (input, weight?, bias?; epsilon default 1e-12)")
def _norm(ctx: Ctx):
    """Over the last dim: layer norm ``(x - mean) / sqrt(var + eps) * w + b`` (population variance), RMS norm
    ``x / sqrt(mean(x^2) + eps) * w + b``; weight and bias of ``W`` elements (any shape), exact, rounded once."""
    ops = _segments(ctx, ("input", "weight", "bias"))
    x = ops["input"]
    eps = ctx.float_attr("epsilon", 1e-12)
    if ctx.op.short_name == "layer_norm":
        mean = x.mean(axis=-1, keepdims=True)
        y = (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps)
    else:
        y = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps)
    return [_affine(ctx, y, ops["weight"], ops["bias"], x.shape[-1])]


@semantics("ttnn.group_norm", source=f"{_TTNN} GroupNormOp (input [N, 1, H*W, C]; weight/bias [C] or [1,1,C/32,32])")
def _group_norm(ctx: Ctx):
    """Mean and population variance per (batch, group) over ``H*W x C/num_groups``; ``weight``/``bias`` per channel.

    ``input_mask`` (ttnn's per-group channel mask, ``create_group_norm_input_mask``)
    is taken to be the standard mask: it selects each group's channels, which
    the grouping above already does; its values are not read.
    """
    ops = _segments(ctx, ("input", "input_mask", "weight", "bias"))
    x = ops["input"]
    if x.ndim != 4 or x.shape[1] != 1:
        raise ctx.error(f"input must be [N, 1, H*W, C], got {list(x.shape)}")
    groups = int_attr(ctx.op, "num_groups")
    n, _, hw, c = x.shape
    if groups <= 0 or c % groups:
        raise ctx.error(f"{c} channels do not split into {groups} groups")
    eps = ctx.float_attr("epsilon", 1e-12)
    g = x.reshape(n, hw, groups, c // groups)
    mean = g.mean(axis=(1, 3), keepdims=True)
    var = ((g - mean) ** 2).mean(axis=(1, 3), keepdims=True)
    y = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    return [_affine(ctx, y, ops["weight"], ops["bias"], c)]


# ---------------------------------------------------------------------------
# Matmul
# ---------------------------------------------------------------------------


def _matmul_activation(ctx: Ctx, y: np.ndarray) -> np.ndarray:
    """The op's ``activation`` string (ttnn's ``string_to_unary_with_param`` names: relu, gelu, silu, sigmoid...)
    and its program config's ``fused_activation``, applied to the result."""
    act = ctx.op.attrs.get("activation")
    if act:
        y = apply_unary(ctx, str(act), y)
    pc = ctx.op.attrs.get("matmul_program_config")
    fused = pc.get("fused_activation") if pc is not None and hasattr(pc, "get") else None
    if isinstance(fused, UnaryWithParam):
        y = apply_unary(ctx, fused.op_type, y, fused.params)
    elif fused is not None:
        raise ctx.error(f"fused_activation {fused!r} is not a #ttnn.unary_with_param")
    return y


@semantics(("ttnn.matmul", "ttnn.linear"), source=f"{_TTNN} MatmulOp/LinearOp; tt-metal matmul (bias, then activation)")
def _matmul(ctx: Ctx):
    """``a @ b`` (numpy matmul: batch dims broadcast; a rank-1 ``a`` is ``[1, K]`` and loses M, a rank-1 ``b``
    is ``[K, 1]`` and loses N), ``transpose_a``/``transpose_b`` swap an operand's last two dims; ``linear`` adds
    its bias (broadcast); then the activation.  Exact (float64), rounded once: the device accumulates in f32
    with ``fp32_dest_acc_en`` and packs once; without it the bf16 accumulation is not emulated."""
    tensors = ctx.tensors()
    a, b = tensors[0].astype(np.float64), tensors[1].astype(np.float64)
    a2 = a if a.ndim > 1 else a[None, :]
    b2 = b if b.ndim > 1 else b[:, None]
    if ctx.bool_attr("transpose_a", False):
        a2 = np.swapaxes(a2, -1, -2)
    if ctx.bool_attr("transpose_b", False):
        b2 = np.swapaxes(b2, -1, -2)
    if a2.shape[-1] != b2.shape[-2]:
        raise ctx.error(f"inner dimensions differ: {list(a2.shape)} @ {list(b2.shape)}")
    y = np.matmul(a2, b2)
    if a.ndim == 1:
        y = y[..., 0, :]
    if b.ndim == 1:
        y = y[..., 0]
    if ctx.op.short_name == "linear" and len(tensors) > 2:
        y = y + tensors[2].astype(np.float64)
    return [_matmul_activation(ctx, y)]


# ---------------------------------------------------------------------------
# Convolution, pooling, upsampling
# ---------------------------------------------------------------------------


def _pads4(ctx: Ctx, pool: bool) -> tuple[int, int, int, int]:
    """(top, bottom, left, right).  Two values are (vertical, horizontal); four are ``[top, bottom, left, right]``
    for conv2d and ``[top, left, bottom, right]`` for the pools (ops/conv.py ``_pads``, tt-mlir 19c86fca)."""
    p = int_list(ctx.op, "padding")
    if len(p) == 2:
        return p[0], p[0], p[1], p[1]
    if len(p) == 4:
        return (p[0], p[2], p[1], p[3]) if pool else (p[0], p[1], p[2], p[3])
    raise ctx.error(f"padding must have 2 or 4 values, got {len(p)}")


def _pair(ctx: Ctx, name: str, default: int | None = None) -> tuple[int, int]:
    if name not in ctx.op.attrs and default is not None:
        return default, default
    v = int_list(ctx.op, name)
    if len(v) != 2:
        raise ctx.error(f"'{name}' must have 2 values, got {v}")
    return v[0], v[1]


def _nhwc(ctx: Ctx, channels: int) -> np.ndarray:
    """The flattened ``[1, 1, N*H*W, C]`` input as ``[N, H, W, C]`` (float64)."""
    x = ctx.f64(0)
    n, h, w = int_attr(ctx.op, "batch_size"), int_attr(ctx.op, "input_height"), int_attr(ctx.op, "input_width")
    if x.size != n * h * w * channels or x.shape[-1] != channels:
        raise ctx.error(f"input {list(x.shape)} is not the flattened [1, 1, {n}*{h}*{w}, {channels}]")
    return x.reshape(n, h, w, channels)


def _window(x: np.ndarray, i: int, j: int, out_h: int, out_w: int, stride: tuple[int, int],
            dilation: tuple[int, int]) -> np.ndarray:
    """``x[:, i*dh + oh*sh, j*dw + ow*sw, :]`` for every output (oh, ow): one kernel tap over the padded image."""
    (sh, sw), (dh, dw) = stride, dilation
    return x[:, i * dh: i * dh + sh * (out_h - 1) + 1: sh, j * dw: j * dw + sw * (out_w - 1) + 1: sw, :]


@semantics("ttnn.conv2d", source="tt-mlir Conv2dOp @19c86fca; ttnn conv2d (NHWC flattened, OIHW weights)")
def _conv2d(ctx: Ctx):
    """2D convolution of the flattened NHWC input ``[1, 1, N*H*W, C]`` with OIHW weights ``[O, C/groups, kh, kw]``,
    ``stride``, ``padding`` (2 or 4 values), ``dilation``, ``groups``; bias ``[1, 1, 1, O]``; then
    ``conv2d_config.activation``.  Output ``[1, 1, N*OH*OW, O]``.

    ttnn converts the weights to ``conv2d_config.weights_dtype`` (prepare_conv_weights, laid out as
    ``[kh*kw*C/groups, O]`` tiles) before the conv; a weights dtype other than the weight's own is emulated by
    rounding the weights in that layout (block-float blocks along O).  Weights already prepared by
    ``prepare_conv2d_weights`` (not OIHW) are refused.  Exact products and sums, rounded once.
    """
    tensors = ctx.tensors()
    c, o, groups = int_attr(ctx.op, "in_channels"), int_attr(ctx.op, "out_channels"), int_attr(ctx.op, "groups", 1)
    x = _nhwc(ctx, c)
    w = tensors[1].astype(np.float64)
    kh, kw = _pair(ctx, "kernel_size")
    if w.shape != (o, c // groups, kh, kw) or c % groups or o % groups:
        raise ctx.error(f"weight {list(w.shape)} is not OIHW [{o}, {c}/{groups}, {kh}, {kw}] "
                        "(prepared conv2d weights are not interpreted)")
    cfg = ctx.op.attrs.get("conv2d_config")
    params = cfg.params if isinstance(cfg, StructAttr) else {}
    wdt = params.get("weights_dtype")
    if isinstance(wdt, str) and wdt != ctx.dtype(1):
        mat = quantize(w.transpose(2, 3, 1, 0).reshape(-1, o), wdt).astype(np.float64)
        w = mat.reshape(kh, kw, c // groups, o).transpose(3, 2, 0, 1)
    stride, dilation = _pair(ctx, "stride"), _pair(ctx, "dilation", 1)
    top, bottom, left, right = _pads4(ctx, pool=False)
    n, h, wd, _ = x.shape
    try:
        oh = out_size(h, top + bottom, kh, stride[0], dilation[0])
        ow = out_size(wd, left + right, kw, stride[1], dilation[1])
    except ShapeError as exc:
        raise ctx.error(str(exc)) from None
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    cg, og = c // groups, o // groups
    y = np.zeros((n, oh, ow, o))
    for g in range(groups):
        xg = xp[..., g * cg:(g + 1) * cg]
        wg = w[g * og:(g + 1) * og]
        for i in range(kh):
            for j in range(kw):
                y[..., g * og:(g + 1) * og] += _window(xg, i, j, oh, ow, stride, dilation) @ wg[:, :, i, j].T
    if len(tensors) > 2:
        y = y + tensors[2].astype(np.float64).reshape(o)
    act = params.get("activation")
    if isinstance(act, UnaryWithParam):
        y = apply_unary(ctx, act.op_type, y, act.params)
    return [y.reshape(1, 1, n * oh * ow, o)]


@semantics(("ttnn.max_pool2d", "ttnn.avg_pool2d"),
           source="tt-mlir MaxPool2dOp/AvgPool2dOp @19c86fca; ttnn pool2d (PyTorch semantics)")
def _pool2d(ctx: Ctx):
    """Max or average pooling of the flattened NHWC input, ``kernel_size``, ``stride``, ``padding`` (four values
    ``[top, left, bottom, right]``), ``dilation``, ``ceil_mode``.  As PyTorch (what ttnn's pools are tested
    against): max pooling ignores padding (pads with -inf); average pooling divides by the number of window taps
    inside the padded image (``count_include_pad``, default true) or inside the image; taps that ceil_mode pushes
    past the padded image count for neither.  Output ``[1, 1, N*OH*OW, C]``."""
    c = int_attr(ctx.op, "channels")
    x = _nhwc(ctx, c)
    kh, kw = _pair(ctx, "kernel_size")
    stride, dilation = _pair(ctx, "stride"), _pair(ctx, "dilation", 1)
    top, bottom, left, right = _pads4(ctx, pool=True)
    ceil_mode = ctx.bool_attr("ceil_mode", False)
    n, h, w, _ = x.shape
    try:
        oh = out_size(h, top + bottom, kh, stride[0], dilation[0], ceil_mode)
        ow = out_size(w, left + right, kw, stride[1], dilation[1], ceil_mode)
    except ShapeError as exc:
        raise ctx.error(str(exc)) from None
    extra_h = max(0, (oh - 1) * stride[0] + dilation[0] * (kh - 1) + 1 - (h + top + bottom))
    extra_w = max(0, (ow - 1) * stride[1] + dilation[1] * (kw - 1) + 1 - (w + left + right))
    pads = ((0, 0), (top, bottom + extra_h), (left, right + extra_w), (0, 0))
    if ctx.op.short_name == "max_pool2d":
        xp = np.pad(x, pads, constant_values=-np.inf)
        y = np.full((n, oh, ow, c), -np.inf)
        for i in range(kh):
            for j in range(kw):
                y = np.maximum(y, _window(xp, i, j, oh, ow, stride, dilation))
    else:
        xp = np.pad(x, pads)
        y = np.zeros((n, oh, ow, c))
        for i in range(kh):
            for j in range(kw):
                y += _window(xp, i, j, oh, ow, stride, dilation)
        include = ctx.bool_attr("count_include_pad", True)

        def taps(out: int, k: int, s: int, d: int, lo: int, hi: int) -> np.ndarray:
            pos = np.arange(out)[:, None] * s + np.arange(k)[None, :] * d
            return ((pos >= lo) & (pos < hi)).sum(axis=1)

        th = taps(oh, kh, stride[0], dilation[0], 0 if include else top, h + top + bottom if include else h + top)
        tw = taps(ow, kw, stride[1], dilation[1], 0 if include else left, w + left + right if include else w + left)
        y = y / np.maximum(th[:, None] * tw[None, :], 1)[None, :, :, None]
    return [y.reshape(1, 1, n * oh * ow, c)]


@semantics("ttnn.upsample", moves_data=False, source="tt-mlir UpsampleOp @19c86fca; ttnn upsample (NHWC)")
def _upsample(ctx: Ctx):
    """``[N, H, W, C] -> [N, H*sh, W*sw, C]``.  ``nearest`` repeats rows and columns; ``bilinear`` interpolates as
    PyTorch with ``align_corners = False`` (source ``(dst + 0.5) / scale - 0.5``, clamped at 0, the next index
    clamped at the edge)."""
    x = ctx.f64(0)
    if x.ndim != 4:
        raise ctx.error(f"input must be [N, H, W, C], got rank {x.ndim}")
    try:
        sh, sw = upsample_scale(ctx.op)
    except ShapeError as exc:
        raise ctx.error(str(exc)) from None
    mode = ctx.op.attrs.get("mode", "nearest")
    if mode == "nearest":
        return [np.repeat(np.repeat(x, sh, axis=1), sw, axis=2)]
    if mode != "bilinear":
        raise ctx.error(f"mode '{mode}' has no reference semantics")

    def axis(size: int, scale: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        src = np.maximum((np.arange(size * scale) + 0.5) / scale - 0.5, 0.0)
        i0 = np.floor(src).astype(np.int64)
        return i0, np.minimum(i0 + 1, size - 1), src - i0

    h0, h1, lh = axis(x.shape[1], sh)
    w0, w1, lw = axis(x.shape[2], sw)
    rows = x[:, h0] * (1 - lh)[None, :, None, None] + x[:, h1] * lh[None, :, None, None]
    return [rows[:, :, w0] * (1 - lw)[None, None, :, None] + rows[:, :, w1] * lw[None, None, :, None]]


@semantics("ttnn.prepare_conv3d_weights", moves_data=True,
           source="tt-metal ttnn/cpp/ttnn/operations/experimental/conv3d/prepare_conv3d_weights.cpp @00bd9100")
def _prepare_conv3d_weights(ctx: Ctx):
    """``[O, C/G, kD, kH, kW] -> [C_aligned*kD*kH*kW, O]`` as tt-metal's ``prepare_conv3d_weights``:

    for ``groups > 1`` the weight is first expanded to ``[O, C, kD, kH, kW]`` with
    zeros outside each output channel's group (``convert_conv_weight_tensor_to_grouped_layout``);
    then permute to ``[kD, kH, kW, C, O]``, zero-pad C to a multiple of
    ``alignment``, reshape to ``[kD, kH, kW, C_aligned/C_in_block, C_in_block, O]``,
    permute to ``[blocks, kD, kH, kW, C_in_block, O]`` and flatten the rows.
    ``c_in_block = 0`` means one block of ``C_aligned``.
    """
    w = ctx.tensor(0)
    if w.ndim != 5:
        raise ctx.error(f"weight must be [O, C/G, kD, kH, kW], got {list(w.shape)}")
    groups = int_attr(ctx.op, "groups", 1)
    align = int_attr(ctx.op, "alignment", 32)
    block = int_attr(ctx.op, "c_in_block", 0)
    o, cg = w.shape[0], w.shape[1]
    if groups > 1:
        full = np.zeros((o, cg * groups) + w.shape[2:], dtype=w.dtype)
        size = o // groups
        for oc in range(o):
            g = min(oc // size, groups - 1)
            full[oc, g * cg:(g + 1) * cg] = w[oc]
        w = full
    p = np.transpose(w, (2, 3, 4, 1, 0))
    c = p.shape[3]
    if c % align:
        p = np.pad(p, ((0, 0), (0, 0), (0, 0), (0, align - c % align), (0, 0)))
    kd, kh, kw, ca, _ = p.shape
    block = block or ca
    if ca % block:
        raise ctx.error(f"C_in_aligned {ca} must be divisible by C_in_block {block}")
    p = p.reshape(kd, kh, kw, ca // block, block, o).transpose(3, 0, 1, 2, 4, 5)
    return [np.ascontiguousarray(p).reshape(-1, o)]


@semantics("ttnn.conv3d", source="tt-metal ttnn/cpp/ttnn/operations/experimental/conv3d (conv3d_device_operation.cpp "
                                 "@021df86f, weights as prepare_conv3d_weights lays them out)")
def _conv3d(ctx: Ctx):
    """3D convolution of ``[N, D, H, W, C]`` (row-major) with prepared weights ``[C_aligned*kD*kH*kW, O]``.

    The weight rows are read as ``prepare_conv3d_weights`` writes them with the
    conv's ``conv3d_config.c_in_block`` (0 or absent: one block of ``C_aligned``):
    row ``((block*kD + kd)*kH + kh)*kW + kw)*C_in_block + c``; input channels
    beyond C (the alignment padding) are zeros.  ``padding`` (one value per
    spatial dim, both sides) uses ``padding_mode`` ``zeros`` or ``replicate``
    (edge values); ``stride``, ``dilation``.  Grouped convs need no grouping
    here: the prepared weights are block-diagonal.  Bias ``[1, O]``.  Exact,
    rounded once.
    """
    tensors = ctx.tensors()
    x, w = tensors[0].astype(np.float64), tensors[1].astype(np.float64)
    if x.ndim != 5 or w.ndim != 2:
        raise ctx.error(f"expects input [N, D, H, W, C] and prepared weight [rows, O], got {list(x.shape)}, "
                        f"{list(w.shape)}")
    k = int_list(ctx.op, "kernel_size")
    stride = int_list(ctx.op, "stride")
    pad = int_list(ctx.op, "padding")
    dil = int_list(ctx.op, "dilation") if "dilation" in ctx.op.attrs else [1, 1, 1]
    kvol = k[0] * k[1] * k[2]
    rows, o = w.shape
    if rows % kvol:
        raise ctx.error(f"weight rows {rows} are not a multiple of the kernel volume {kvol}")
    ca = rows // kvol
    c = x.shape[-1]
    if ca < c:
        raise ctx.error(f"weight rows hold {ca} input channels per tap, the input has {c}")
    cfg = ctx.op.attrs.get("conv3d_config")
    block = (cfg.params.get("c_in_block") if isinstance(cfg, StructAttr) else None) or ca
    if ca % block:
        raise ctx.error(f"C_in_aligned {ca} must be divisible by c_in_block {block}")
    kern = w.reshape(ca // block, k[0], k[1], k[2], block, o).transpose(1, 2, 3, 0, 4, 5).reshape(*k, ca, o)
    mode = ctx.op.attrs.get("padding_mode", "zeros")
    if mode not in ("zeros", "replicate"):
        raise ctx.error(f"padding_mode '{mode}' has no reference semantics")
    spatial = [(p, p) for p in pad]
    xp = np.pad(x, [(0, 0)] + spatial + [(0, 0)], mode="constant" if mode == "zeros" else "edge")
    if ca > c:
        xp = np.pad(xp, [(0, 0)] * 4 + [(0, ca - c)])
    try:
        out = [out_size(x.shape[1 + i], 2 * pad[i], k[i], stride[i], dil[i]) for i in range(3)]
    except ShapeError as exc:
        raise ctx.error(str(exc)) from None
    y = np.zeros((x.shape[0], *out, o))
    for a in range(k[0]):
        for b in range(k[1]):
            for cc in range(k[2]):
                tap = xp[:, a * dil[0]: a * dil[0] + stride[0] * (out[0] - 1) + 1: stride[0],
                         b * dil[1]: b * dil[1] + stride[1] * (out[1] - 1) + 1: stride[1],
                         cc * dil[2]: cc * dil[2] + stride[2] * (out[2] - 1) + 1: stride[2], :]
                y += tap @ kern[a, b, cc]
    if len(tensors) > 2:
        y = y + tensors[2].astype(np.float64).reshape(o)
    return [y]


# ---------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------


@semantics(("ttcore.load_cached", "func.call"), moves_data=True,
           source="tt-mlir TTCoreOps.td LoadCachedOp @19c86fca (runs the const-eval function, caches its results)")
def _call(ctx: Ctx):
    """The results of the named function run on the operands (the cache does not change values)."""
    callee = ctx.op.callee or ctx.op.attrs.get("callee")
    if not callee:
        raise ctx.error("names no function")
    return ctx.call(str(callee), ctx.args)
