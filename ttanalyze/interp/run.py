"""Execute a parsed TTNN program on numpy arrays: :func:`run` and :func:`random_inputs`.

The interpreter walks a function's ops in order.  Each op's operands are looked
up, its reference semantics (:mod:`ttanalyze.interp.ops`) computes the result
values, each result is checked against its declared shape and rounded to its
declared data type (:func:`ttanalyze.interp.numerics.quantize`) as the device
stores it.  ``ttnn.deallocate`` forgets its operand (a later use is an error);
``ttcore.load_cached`` runs the named const-eval function; the function's
returned values (``func.return``) are the results.  Values are the logical
tensors: layouts, tiling, padding and memory configs do not change them.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..ir.model import Func, Op, Program, TensorType, Value
from ..ops.registry import ShapeError, lookup as op_model
from .numerics import BLOCK_FLOAT, InterpError, dtype_of, is_float, quantize, random_values, storage
from .ops import DEVICE, Ctx, lookup

# Ops an index tensor may pass through on its way to the op that reads it as indices.
_INDEX_CARRIERS = ("ttnn.to_layout", "ttnn.to_memory_config", "ttnn.to_device", "ttnn.from_device", "ttnn.typecast",
                   "ttnn.reshape", "ttnn.permute", "ttnn.transpose", "ttnn.slice_static", "ttnn.repeat",
                   "ttnn.repeat_interleave", "ttnn.concat")

OpObserver = Callable[[Op, list[Any]], None]


def _index_bound(value: Value, seen: set[int] | None = None) -> int | None:
    """Exclusive upper bound for index values of ``value`` when an op downstream reads it as indices.

    Follows the value through :data:`_INDEX_CARRIERS` to a ``ttnn.embedding``
    that takes it as its indices (operand 0): the bound is the weight's row
    count (``prod(weight.shape[:-1])``).  None when no such reader is found.
    """
    seen = seen if seen is not None else set()
    if id(value) in seen:
        return None
    seen.add(id(value))
    bounds = []
    for user in value.users:
        if user.name == "ttnn.embedding" and user.operands and user.operands[0] is value and len(user.operands) > 1:
            w = user.operands[1].type
            if isinstance(w, TensorType):
                bounds.append(int(np.prod(w.shape[:-1])))
        elif user.name in _INDEX_CARRIERS:
            for r in user.results:
                b = _index_bound(r, seen)
                if b is not None:
                    bounds.append(b)
    return min(bounds) if bounds else None


def random_inputs(func: Func, seed: int = 0, int_high: int = 16) -> list[np.ndarray]:
    """One random array per tensor argument of ``func``, of its declared shape and data type.

    Floats are uniform in [-1, 1), rounded to the argument's data type (bf16,
    block-float blocks, ...).  Integer (or float) arguments that reach a
    ``ttnn.embedding`` as its indices get integers in ``[0, rows)`` of the
    table they index; other integer arguments get integers in ``[0, int_high)``.

    Args:
        func: the function (e.g. ``Program.entry``).
        seed: numpy ``default_rng`` seed; the same seed gives the same arrays.
        int_high: exclusive bound of integer values with no inferable index range.
    """
    rng = np.random.default_rng(seed)
    out = []
    for arg in func.args:
        if not isinstance(arg.type, TensorType):
            continue
        dtype = dtype_of(arg.type)
        shape = tuple(arg.type.shape)
        bound = _index_bound(arg)
        if bound is not None:
            out.append(quantize(rng.integers(0, max(bound, 1), size=shape), dtype))
        else:
            out.append(random_values(shape, dtype, rng, int_high))
    return out


def check_input(arg: Value, x: Any, path: str, pos=None) -> np.ndarray:
    """``x`` as the value of tensor argument ``arg``: its declared shape, in the storage type of its data type.

    Float inputs (any float numpy type) are rounded to the argument's data type,
    as a host tensor is converted when it is created with that dtype; integer
    inputs must fit the integer type.

    Integer arrays are accepted for float types (converted exactly, then rounded).

    Raises:
        InterpError: not a numeric numpy array, a shape other than the declared one,
            float values for an integer type, or integers outside the integer type's range.
    """
    t = arg.type
    label = arg.arg_name or arg.name
    if not isinstance(x, np.ndarray):
        raise InterpError(f"input {label}: expected a numpy array, got {type(x).__name__}", path, pos)
    if tuple(x.shape) != tuple(t.shape):
        raise InterpError(f"input {label}: shape {list(x.shape)} differs from the declared {list(t.shape)}", path, pos)
    dtype = dtype_of(t)
    if is_float(dtype):
        if x.dtype.kind not in "fiub":
            raise InterpError(f"input {label}: {x.dtype} values for a {dtype} tensor", path, pos)
        return quantize(x, dtype)
    if x.dtype.kind == "f":
        raise InterpError(f"input {label}: float values for a {dtype} tensor", path, pos)
    if x.dtype.kind not in "iub":
        raise InterpError(f"input {label}: {x.dtype} values for a {dtype} tensor", path, pos)
    info = np.iinfo(storage(dtype))
    if x.size and (x.min() < info.min or x.max() > (1 if dtype == "i1" else info.max)):
        raise InterpError(f"input {label}: values [{x.min()}, {x.max()}] do not fit {dtype}", path, pos)
    return x.astype(storage(dtype))


class Interpreter:
    """Runs the functions of one program.

    Attributes:
        program: the parsed program.
        observer: called as ``observer(op, results)`` after each op with its rounded result values.
    """

    def __init__(self, program: Program, observer: OpObserver | None = None):
        self.program = program
        self.observer = observer
        self.path = program.path or "<string>"
        self._depth = 0

    def call(self, name: str, args: list[Any], op: Op | None = None) -> list[Any]:
        """Run function ``name`` of the program on ``args`` (one value per argument, devices included)."""
        func = self.program.func(name)
        pos = op.pos if op is not None else None
        if func is None:
            raise InterpError(f"{op.name if op else 'call'}: no function @{name} in the program", self.path, pos)
        if len(args) != len(func.args):
            raise InterpError(f"@{name} takes {len(func.args)} arguments, got {len(args)}", self.path, pos)
        if self._depth > 64:
            raise InterpError(f"calls nested deeper than 64 at @{name}", self.path, pos)
        self._depth += 1
        try:
            return self.execute(func, args)
        finally:
            self._depth -= 1

    def execute(self, func: Func, args: list[Any]) -> list[Any]:
        """Run ``func``'s ops on its argument values; return the values of its ``func.return``."""
        env: dict[int, Any] = {id(a): x for a, x in zip(func.args, args)}
        freed: dict[int, Op] = {}

        def fetch(op: Op, v: Value) -> Any:
            key = id(v)
            if key in env:
                return env[key]
            if key in freed:
                raise InterpError(f"{op.name}: {v.name} is used after its ttnn.deallocate at {freed[key].pos}",
                                  self.path, op.pos)
            raise InterpError(f"{op.name}: {v.name} has no value (defined after its use?)", self.path, op.pos)

        for op in func.ops:
            sem = lookup(op.name)
            if sem is None:
                raise InterpError(f"{op.name} has no reference semantics in the interpreter", self.path, op.pos)
            values = [fetch(op, v) for v in op.operands]
            ctx = Ctx(op, values, lambda name, a, _op=op: self.call(name, a, _op), self.path)
            try:
                model = op_model(op.name)
                if model is not None and model.infer is not None:
                    model.infer(op)  # an op its shape rule refuses (arange step 0, ...) has no value to compute
                results = sem.fn(ctx)
                if len(results) != len(op.results):
                    raise InterpError(f"{op.name}: semantics gave {len(results)} results, the op declares "
                                      f"{len(op.results)}", self.path, op.pos)
                results = [self._finish(op, sem.moves_data, r, v, values) for r, v in zip(results, op.results)]
            except ShapeError as exc:
                raise InterpError(f"{op.name}: {exc}", self.path, op.pos) from None
            except InterpError as exc:
                if exc.pos is None:  # raised below the op (numerics): give it the op's position
                    raise InterpError(f"{op.name}: {exc.message}", self.path, op.pos) from None
                raise
            if op.name == "ttnn.deallocate":
                for v in op.operands:
                    env.pop(id(v), None)
                    freed[id(v)] = op
            for r, v in zip(results, op.results):
                env[id(v)] = r
            if self.observer is not None:
                self.observer(op, results)
        return [fetch_return(func, env, freed, v, self.path) for v in func.returns]

    def _finish(self, op: Op, moves_data: bool, value: Any, result: Value, operands: list[Any]) -> Any:
        """A result value checked against its declared type and rounded to its data type."""
        if not isinstance(result.type, TensorType):
            return value
        if not isinstance(value, np.ndarray):
            value = np.asarray(value)
        declared = tuple(result.type.shape)
        if tuple(value.shape) != declared:
            raise InterpError(f"{op.name}: {result.name} computes to shape {list(value.shape)}, the IR declares "
                              f"{list(declared)}", self.path, op.pos)
        dtype = dtype_of(result.type)
        target = storage(dtype)
        if moves_data and dtype not in BLOCK_FLOAT and value.dtype == target and all(
                not isinstance(o, np.ndarray) or o.dtype == target for o in operands) and all(
                not isinstance(v.type, TensorType) or dtype_of(v.type) == dtype for v in op.operands):
            return value  # values moved, not computed, within one data type: already representable
        return quantize(value, dtype)


def fetch_return(func: Func, env: dict[int, Any], freed: dict[int, Op], v: Value, path: str) -> Any:
    """The value ``func`` returns for ``v``.

    Raises:
        InterpError: ``v`` was deallocated before the return, or never computed.
    """
    if id(v) in env:
        return env[id(v)]
    if id(v) in freed:
        raise InterpError(f"@{func.name} returns {v.name} after its ttnn.deallocate at {freed[id(v)].pos}", path,
                          func.pos)
    raise InterpError(f"@{func.name} returns {v.name}, which has no value", path, func.pos)


def run(program: Program, inputs: Sequence[np.ndarray], func: Func | None = None,
        observer: OpObserver | None = None) -> list[np.ndarray]:
    """Run ``func`` (default: ``program.entry``) on ``inputs``; return its results.

    Args:
        program: a parsed program (:func:`ttanalyze.ir.parse.parse_file`).
        inputs: one numpy array per *tensor* argument, in order; non-tensor
            arguments (``!ttnn.device``) get the device.  Floats are rounded to
            the argument's data type (:func:`check_input`).
        func: the function to run; ``program.entry`` when None.
        observer: called as ``observer(op, results)`` after every op (results rounded).

    Returns:
        One array per returned value: the logical tensor, in the storage type of
        its data type (float32 for float types, int32/uint32/uint16/uint8).

    Raises:
        InterpError: bad inputs (count, shape, dtype), an op without semantics,
            operands or attributes its semantics reject, a use after deallocate,
            a result whose computed shape differs from its declared shape.
    """
    func = func if func is not None else program.entry
    path = program.path or "<string>"
    if func is None:
        raise InterpError("the program has no functions", path)
    tensor_args = [a for a in func.args if isinstance(a.type, TensorType)]
    if len(inputs) != len(tensor_args):
        raise InterpError(f"@{func.name} takes {len(tensor_args)} tensor inputs, got {len(inputs)}", path, func.pos)
    values, it = [], iter(inputs)
    for a in func.args:
        if isinstance(a.type, TensorType):
            values.append(check_input(a, next(it), path, func.pos))
        elif "device" in str(a.type):
            values.append(DEVICE)
        else:
            raise InterpError(f"@{func.name} argument {a.name} of type {a.type} has no reference value", path,
                              func.pos)
    return Interpreter(program, observer).execute(func, values)
