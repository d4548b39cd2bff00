"""How large can one dimension grow before an op overflows L1?  (``ttanalyze limits``)

Three steps:

1. **Name the dimension** (:func:`resolve_dim`): ``%argN:D`` or ``NAME:D`` (a
   function argument of the entry function by SSA name or by its ``loc("NAME")``,
   dim ``D``, negative counts from the end), or an alias of the entry function's
   first argument: ``batch`` (dim 0), ``sequence`` (dim -2), ``width`` (dim -1).

2. **Derive the program as a function of the new size v** (:func:`derive`): a
   sympy symbol ``v`` replaces that dim and flows through the ops, so every
   tensor dim becomes a linear expression in ``v`` (elements).  Most ops use
   the project's own shape rules (:mod:`ttanalyze.ops`): each rule is applied to
   the operand shapes at three sizes of ``v`` and a result dim must follow a
   line through them (elementwise with broadcasting, permute, transpose,
   matmul/linear, concat, pad, repeat, reductions, argmax, topk, embedding,
   layout conversions, normalizations).  Ops whose attributes carry shapes get
   their own rule and have those attributes rewritten: ``reshape`` (its
   ``shape``; dims are matched in groups of equal size products, size-1 dims
   joining the group after them; the group's symbolic factor goes to the dim
   that carries the same dim through, else to the group's only dim > 1, else
   the op is refused as ambiguous), ``slice_static`` (``ends`` of a full-extent
   slice), ``conv2d``/``max_pool2d``/``avg_pool2d`` (``batch_size``: the batch
   only).  Anything else an expression reaches -- an op without a rule, a
   sharded tensor, a matmul with a fixed ``matmul_program_config`` (unless
   ``auto_matmul_config``), a const-eval call -- stops the derivation with an
   :class:`~ttanalyze.errors.InputError` at the op's file:line:col: never a
   guess.  Every rule is checked to reproduce the declared result shapes at
   the current size.

3. **Search** (:func:`find_limit`): the analyzer is the oracle.  At a size v the
   program is instantiated (:func:`instantiate`: every affected tensor type is
   rewritten, its ``#ttnn.ttnn_layout`` memref and affine map recomputed with
   :func:`ttanalyze.layout.derive_memref` and the tt-mlir collapse) and
   analyzed; v *fits* when no op has a TTA004 (L1 tensors beyond the L1 bank),
   TTA010 (circular buffers beyond ``l1_size`` or into live L1 buffers) or
   L1-size TTA013 (a refusal for lack of L1) finding.  z3 holds what is known:
   legal sizes (``v >= 1``, ``v <= max``, divisibility from rational dims,
   ``v >= k`` lower bounds such as topk's k), ``v > largest fitting size``,
   ``v < smallest failing size``, and a learned linear model of the binding
   op's L1 figure (bytes at two sampled sizes, ``a*v + b <= budget``); it
   proposes the next size (the largest size the model allows, or the smallest
   legal size above the midpoint when the model stalls), until no legal size
   remains between the two.  The answer is exact at the boundary: the
   analyzer fits at ``largest`` and overflows at ``first_failing``, the next
   legal size; the two sizes after ``first_failing`` are probed too, and a note
   says so if one of them fits again.  Below ``largest``, sizes that were not
   probed are assumed to fit (L1 figures grow with the dims; the ceil divisions
   over tiles and cores make them only piecewise monotone).

   Two caps keep a probe from asking the analyzer about a program that could
   never run (and whose models would need memory in proportion to the
   tensors): a size at which one device tensor needs more bytes than the
   whole DRAM of the chip (``usable_dram_per_bank x num_dram_channels``; tile
   padding counted, page alignment not, so the cap never refuses a size that
   could fit), or at which any tensor has more than :data:`MAX_ELEMENTS`
   elements, *fails* without an analyzer call, with the tensor as the reason
   (binding rule ``dram-capacity`` / ``model-budget``); a note says
   ``search stopped at v = N`` when that is the first failing size.  An
   analyzer call slower than :data:`PROBE_SECONDS` on a fitting size stops the
   geometric growth there (``LimitResult.searched_max``, with a note).
"""

from __future__ import annotations

import math
import re
import contextlib
import signal
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import sympy
import z3

from . import fmt
from . import ops as O
from .analysis import Analysis, analyze
from .errors import InputError, Interrupted
from .findings import Finding
from .ir.attr_grammar import AffineMapV
from .ir.emit import linear_map_text
from .arch import Arch, resolve_arch
from .ir.model import Func, Op, Program, TensorType, Value
from .layout import ceil_div, derive_memref, tile_padded_shape
from .versions import DEFAULT_TT_METAL

V = sympy.Symbol("v", integer=True, positive=True)
DEFAULT_MAX = 2**20
ALIASES = {"batch": 0, "sequence": -2, "width": -1}
MAX_PROBES = 200
GROWTH = 4
# The largest tensor (elements) the analyzer is asked to model: a size beyond it fails as "model-budget".
MAX_ELEMENTS = 2**34
# An analyzer call (seconds) slower than this on a fitting size stops the search from growing past it.
PROBE_SECONDS = 60.0
# Binding rules of sizes refused without an analyzer call (see the module docstring).
SIZE_CAPS = ("dram-capacity", "model-budget", "time-budget")

Expr = sympy.Expr
Shape = tuple  # of sympy expressions

# Op families whose result has the first operand's shape when the op has no shape rule.
_SAME_SHAPE_FAMILIES = ("layout_conversion", "host", "eltwise_unary", "normalization")
# Ops whose results follow from their operands through the project's shape rule alone.
_SAMPLED_FAMILIES = ("eltwise_unary", "eltwise_binary", "eltwise_ternary", "layout_conversion", "host",
                     "reduction", "normalization", "matmul")
_SAMPLED_OPS = ("ttnn.permute", "ttnn.transpose", "ttnn.concat", "ttnn.pad", "ttnn.repeat",
                "ttnn.repeat_interleave", "ttnn.embedding")
_POOL_CONV = ("ttnn.conv2d", "ttnn.max_pool2d", "ttnn.avg_pool2d")
_L1_REJECTION = re.compile(r"\bL1\b|cache size|does not fit", re.IGNORECASE)


# ---------------------------------------------------------------------------
# 1. naming the dimension
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DimRef:
    """A dimension of an entry-function argument.

    Attributes:
        arg: the argument (a tensor Value); dim: its dim index in ``[0, rank)``.
        spec: the name as given (``batch``, ``%arg0:1``, ``x:-1``).
        current: the dim's size in the program, in elements.
        tied: further (argument, dim index) pairs that take the same size as
            ``arg`` dim ``dim`` (``--dim x:-1,w1:0``); empty for one dim.
    """

    arg: Value
    dim: int
    spec: str
    current: int
    tied: tuple[tuple[Value, int], ...] = ()

    @property
    def label(self) -> str:
        """``%arg0 (x) dim 0`` (with the dims tied to it)."""
        return ", ".join(f"{a.name}{' (' + a.arg_name + ')' if a.arg_name else ''} dim {d}"
                         for a, d in ((self.arg, self.dim),) + self.tied)


def _choices(func: Func) -> str:
    args = [f"{v.name}{' (' + v.arg_name + ')' if v.arg_name else ''} rank {len(v.type.shape)}"
            for v in func.args if v.is_tensor]
    return ("batch (dim 0), sequence (dim -2) or width (dim -1) of the first argument, or ARG:DIM with ARG "
            f"one of {', '.join(args) or 'none'}")


def resolve_dim(program: Program, spec: str) -> DimRef:
    """Resolve ``--dim`` against the program's entry function (:attr:`Program.entry`).

    Accepted: ``batch`` / ``sequence`` / ``width`` (dims 0, -2, -1 of the first
    tensor argument), ``%argN:D`` and ``NAME:D`` (NAME the argument's
    ``loc("NAME")``); ``D`` may be negative.  Several, comma-separated, name
    dims that must stay equal (a width shared by an input and its weights:
    ``x:-1,w1:0``); they must have the same size now.

    Raises:
        InputError: unknown name, non-tensor argument, out-of-range dim, or tied
            dims of different sizes; the message lists the valid choices (at
            the entry function's position).
    """
    parts = [x.strip() for x in spec.split(",") if x.strip()]
    if len(parts) > 1:
        refs = [_resolve_one(program, x) for x in parts]
        first = refs[0]
        for r in refs[1:]:
            if r.current != first.current:
                raise InputError(f"--dim {spec}: tied dims differ in size ({first.label} is {first.current}, "
                                 f"{r.label} is {r.current})", program.path, program.entry.pos)
        tied = tuple(dict.fromkeys((r.arg, r.dim) for r in refs[1:] if (r.arg, r.dim) != (first.arg, first.dim)))
        return replace(first, spec=spec, tied=tied)
    return _resolve_one(program, spec)


def _resolve_one(program: Program, spec: str) -> DimRef:
    func = program.entry
    if func is None:
        raise InputError("no function to analyze", program.path)
    tensors = [v for v in func.args if v.is_tensor]
    text = spec.strip()
    if text in ALIASES:
        if not tensors:
            raise InputError(f"--dim {spec}: the entry function @{func.name} has no tensor argument", program.path, func.pos)
        arg, dim = tensors[0], ALIASES[text]
    else:
        name, sep, dim_text = text.rpartition(":")
        if not sep or not re.fullmatch(r"-?\d+", dim_text.strip()):
            raise InputError(f"unknown dimension '{spec}': use {_choices(func)}", program.path, func.pos)
        dim = int(dim_text)
        matches = [v for v in func.args if v.name == name or (v.arg_name and v.arg_name == name)
                   or v.name == "%" + name]
        if not matches:
            raise InputError(f"unknown argument '{name}' in --dim {spec}: use {_choices(func)}", program.path, func.pos)
        arg = matches[0]
        if not arg.is_tensor:
            raise InputError(f"--dim {spec}: {arg.name} is not a tensor: use {_choices(func)}", program.path, func.pos)
    rank = len(arg.type.shape)
    d = dim + rank if dim < 0 else dim
    if not 0 <= d < rank:
        raise InputError(f"--dim {spec}: dim {dim} is out of range for {arg.name} of rank {rank} "
                         f"(valid: {-rank}..{rank - 1}); use {_choices(func)}", program.path, func.pos)
    return DimRef(arg, d, spec, arg.type.shape[d])


# ---------------------------------------------------------------------------
# 2. the program as a function of v
# ---------------------------------------------------------------------------


@dataclass
class Derivation:
    """The program's dims as linear functions of ``v`` (:data:`V`).

    Attributes:
        ref: the dimension.
        shapes: symbolic shape (sympy expressions, elements) of every tensor
            value that depends on ``v``; other values keep their types.
        attrs: per op index, attribute name -> new value as a function of v
            (a callable ``int -> value``), or None to drop the attribute.
        raw: per op index, attribute name -> callable ``int -> text`` for reports.
        lower_bounds: (bound, why): sizes below ``bound`` are not legal.
        divisibility: the denominators ``q`` of the rational coefficients
            ``p/q`` of ``v`` in the derived dims: such a dim stays an integer
            exactly when ``q`` divides ``v - current`` (see :attr:`modulus`).
        reached: indices of the ops with a symbolic operand or result.
    """

    ref: DimRef
    shapes: dict[Value, Shape] = field(default_factory=dict)
    attrs: dict[int, dict[str, Callable[[int], Any] | None]] = field(default_factory=dict)
    raw: dict[int, dict[str, Callable[[int], str]]] = field(default_factory=dict)
    lower_bounds: list[tuple[int, str]] = field(default_factory=list)
    divisibility: list[int] = field(default_factory=list)
    reached: list[int] = field(default_factory=list)

    @property
    def modulus(self) -> int:
        """v must be congruent to the current size modulo this (elements; 1 when any size works):
        the lcm of :attr:`divisibility`."""
        return math.lcm(1, *self.divisibility)

    @property
    def lower_bound(self) -> int:
        """The smallest legal size (elements): the largest of :attr:`lower_bounds`, at least 1."""
        return max([1] + [b for b, _ in self.lower_bounds])


def _pos_error(program: Program, op: Op, message: str) -> InputError:
    return InputError(f"{op.name}: {message}", program.path, op.pos)


def _shape_text(s) -> str:
    return "x".join(str(d) for d in s)


def _concrete(shape: Shape, v: int) -> tuple[int, ...]:
    out = []
    for d in shape:
        x = d.subs(V, v) if isinstance(d, sympy.Expr) else d
        if not getattr(x, "is_integer", True):
            raise ValueError(f"dim {d} is not an integer at v = {v}")
        out.append(int(x))
    return tuple(out)


def _is_sym(shape: Shape | None) -> bool:
    return shape is not None and any(isinstance(d, sympy.Expr) and d.has(V) for d in shape)


def derive(program: Program, ref: DimRef, auto_matmul_config: bool = False) -> Derivation:
    """Propagate ``v`` (the size of ``ref``) through the program (see module docstring, step 2).

    Args:
        program: the parsed program.
        ref: the dimension (:func:`resolve_dim`).
        auto_matmul_config: drop a ``matmul_program_config`` the dimension
            reaches (tt-metal then picks its own config, which the matmul
            model derives) instead of refusing.

    Raises:
        InputError: an op the dimension reaches whose result dims cannot be
            derived, at the op's file:line:col.
    """
    der = Derivation(ref)
    v0 = ref.current
    for arg, dim in ((ref.arg, ref.dim),) + ref.tied:
        shape = list(der.shapes.get(arg) or [sympy.Integer(d) for d in arg.type.shape])
        shape[dim] = V
        der.shapes[arg] = tuple(shape)
    for op in program.ops:
        ins = [der.shapes.get(x) for x in op.operands]
        if not any(_is_sym(s) for s in ins):
            continue
        ins = [s if s is not None else (tuple(sympy.Integer(d) for d in x.type.shape)
                                        if isinstance(x.type, TensorType) else None)
               for x, s in zip(op.operands, ins)]
        der.reached.append(op.index)
        for x, s in zip(op.operands, ins):
            if _is_sym(s) and isinstance(x.type, TensorType) and x.type.layout is not None and x.type.layout.is_sharded:
                raise _pos_error(program, op, f"operand {x.name} is {x.type.layout.memory_layout}: its shard spec "
                                 f"would have to be re-planned for another {ref.spec}; not modeled")
        results = _rule(program, op, ins, der, auto_matmul_config)
        for r, s in zip(op.results, results):
            if not isinstance(r.type, TensorType):
                continue
            got = _concrete(s, v0)
            if got != r.type.shape:
                raise _pos_error(program, op, f"its rule gives result {r.name} {_shape_text(got)} at {ref.spec} = "
                                 f"{v0} but the IR declares {_shape_text(r.type.shape)}: cannot scale it")
            if _is_sym(s):
                if r.type.layout is not None and r.type.layout.is_sharded:
                    raise _pos_error(program, op, f"result {r.name} is {r.type.layout.memory_layout}: its shard spec "
                                     f"would have to be re-planned for another {ref.spec}; not modeled")
                der.shapes[r] = tuple(s)
                for d in s:
                    _constrain(der, program, op, sympy.expand(d))
    return der


def _constrain(der: Derivation, program: Program, op: Op, d: Expr) -> None:
    """Record that dim ``d`` (linear in v) stays an integer (a modulus on v) and >= 1 (a lower bound)."""
    if not d.has(V):
        return
    poly = sympy.Poly(d, V)
    if poly.degree() > 1:
        raise _pos_error(program, op, f"a result dim becomes {d}, not linear in the size: not supported")
    a = sympy.Rational(poly.coeff_monomial(V))
    b = sympy.Rational(poly.coeff_monomial(1))
    if a.q > 1:
        der.divisibility.append(int(a.q))
    if a > 0:
        bound = int(sympy.ceiling((1 - b) / a))
        if bound > 1:
            der.lower_bounds.append((bound, f"{op.name} at line {op.pos.line} needs its dim {d} >= 1"))
    elif a < 0:
        raise _pos_error(program, op, f"a result dim {d} shrinks as the size grows: not supported")


def _fake(op: Op, shapes: list[tuple[int, ...] | None]) -> Op:
    operands = [Value(x.name, TensorType(s, x.type.element, x.type.layout, x.type.encoding_text))
                if s is not None and isinstance(x.type, TensorType) else x for x, s in zip(op.operands, shapes)]
    return replace(op, operands=operands)


def _rule(program: Program, op: Op, ins: list[Shape | None], der: Derivation, auto_mm: bool) -> list[Shape]:
    ref = der.ref
    v0 = ref.current
    if op.name == "ttnn.reshape":
        return [_reshape(program, op, ins[0], der)]
    if op.name == "ttnn.slice_static":
        return [_slice(program, op, ins[0], der)]
    if op.name in _POOL_CONV:
        return _conv(program, op, ins, der)
    if op.name == "ttcore.load_cached" or op.name == "func.call":
        raise _pos_error(program, op, f"{ref.spec} reaches a call of @{op.callee or '?'}: "
                         "scaling through calls (const-eval functions) is not supported")
    if not any(isinstance(r.type, TensorType) for r in op.results):
        return []  # deallocate and other ops without tensor results
    model = O.lookup(op.name)
    if model is None:
        raise _pos_error(program, op, f"no shape rule for this op: cannot derive its result dims from {ref.spec}")
    if model.family == "matmul" and "matmul_program_config" in op.attrs:
        if not auto_mm:
            raise _pos_error(program, op, f"its matmul_program_config was planned for {ref.spec} = {v0}; "
                             "another size needs another config (pass --auto-matmul-config to let tt-metal "
                             "choose one, as without the attribute)")
        der.attrs.setdefault(op.index, {})["matmul_program_config"] = None
    if model.family not in _SAMPLED_FAMILIES and op.name not in _SAMPLED_OPS:
        raise _pos_error(program, op, f"no rule to scale this op's result dims with {ref.spec}")
    if model.infer is None:
        if model.family in _SAME_SHAPE_FAMILIES and ins and ins[0] is not None:
            return [ins[0] for _ in op.results]
        raise _pos_error(program, op, f"its shape rule does not derive result dims: cannot scale it with {ref.spec}")
    step = der.modulus
    samples = [v0, v0 + step, v0 + 2 * step]
    outs = []
    for v in samples:
        fake = _fake(op, [_concrete(s, v) if s is not None else None for s in ins])
        try:
            got = model.infer(fake)
        except O.ShapeError as exc:
            raise _pos_error(program, op, f"at {ref.spec} = {v} its operands admit no result: {exc}") from None
        if got is None:
            raise _pos_error(program, op, f"its shape rule does not derive result dims: cannot scale it with {ref.spec}")
        outs.append(got)
    results = []
    for k in range(len(outs[0])):
        dims = []
        for i in range(len(outs[0][k])):
            y0, y1, y2 = (o[k][i] for o in outs)
            if y2 - y1 != y1 - y0:
                raise _pos_error(program, op, f"result dim {i} is not linear in {ref.spec} "
                                 f"({y0}, {y1}, {y2} at {', '.join(map(str, samples))})")
            dims.append(sympy.Integer(y0) + sympy.Rational(y1 - y0, step) * (V - v0))
        results.append(tuple(sympy.expand(d) for d in dims))
    if op.name == "ttnn.topk" and _is_sym(ins[0]):
        k, dim = op.attrs.get("k"), op.attrs.get("dim", -1)
        rank = len(ins[0])
        d = ins[0][dim % rank] if isinstance(dim, int) and -rank <= dim < rank else sympy.Integer(0)
        if d.has(V) and isinstance(k, int):
            bound = sympy.solve(sympy.Eq(d, k), V)
            if bound:
                der.lower_bounds.append((int(sympy.ceiling(bound[0])),
                                         f"topk at line {op.pos.line} needs k = {k} <= its dim {dim}"))
    return results


def _groups(a: tuple[int, ...], b: tuple[int, ...]) -> list[tuple[list[int], list[int]]] | None:
    """Match dims of ``a`` and ``b`` (original sizes) in groups of equal products.

    Size-1 dims join the group after them; trailing ones the last group.  None when the products never meet.
    """
    out: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(a) or j < len(b):
        gi: list[int] = []
        gj: list[int] = []
        while i < len(a) and a[i] == 1:
            gi.append(i)
            i += 1
        while j < len(b) and b[j] == 1:
            gj.append(j)
            j += 1
        if i == len(a) and j == len(b):
            if out:
                out[-1][0].extend(gi)
                out[-1][1].extend(gj)
            else:
                out.append((gi, gj))
            break
        if i == len(a) or j == len(b):
            return None
        pa, pb = a[i], b[j]
        gi.append(i)
        gj.append(j)
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb:
                if i == len(a):
                    return None
                pa *= a[i]
                gi.append(i)
                i += 1
            else:
                if j == len(b):
                    return None
                pb *= b[j]
                gj.append(j)
                j += 1
        out.append((gi, gj))
    return out


def _reshape(program: Program, op: Op, src: Shape, der: Derivation) -> Shape:
    ref = der.ref
    v0 = ref.current
    a0 = tuple(op.operands[0].type.shape)
    b0 = tuple(op.results[0].type.shape)
    groups = _groups(a0, b0)
    if groups is None:
        raise _pos_error(program, op, f"cannot match {_shape_text(a0)} -> {_shape_text(b0)} in groups of equal size")
    out: list[Expr] = [sympy.Integer(d) for d in b0]
    for gi, gj in groups:
        exprs = [src[i] for i in gi]
        if not any(e.has(V) for e in exprs):
            continue
        whole = sympy.expand(sympy.Mul(*exprs))
        if len(gj) == 1:
            out[gj[0]] = whole
            continue
        sym = [i for i in gi if src[i].has(V)]
        p0 = math.prod(a0[i] for i in gi)
        # (1) the named dim itself comes out whole: the group is (p0 / v0) * v and one result dim has size v0
        named = [j for j in gj if sympy.expand(whole - sympy.Rational(p0, v0) * V) == 0 and b0[j] == v0]
        # (2) an input dim carried through: one symbolic input dim, one result dim of its size
        carried = [j for j in gj if len(sym) == 1 and b0[j] == a0[sym[0]]]
        # (3) the group's only result dim > 1 takes the factor
        big = [j for j in gj if b0[j] != 1]
        if len(named) == 1:
            out[named[0]] = V
        elif len(sym) == 1 and len(carried) == 1:
            out[carried[0]] = src[sym[0]]
        elif len(big) == 1:
            out[big[0]] = sympy.expand(whole / sympy.Mul(*[b0[j] for j in gj if j != big[0]]))
        else:
            raise _pos_error(program, op, f"reshape {_shape_text(a0)} -> {_shape_text(b0)}: cannot tell which of "
                             f"the result dims {[b0[j] for j in gj]} carries {ref.spec} (dims {[str(e) for e in exprs]})")
    shape = tuple(sympy.expand(d) for d in out)
    attr = op.attrs.get("shape")
    if isinstance(attr, list) and [int(x) for x in attr] == list(b0):
        der.attrs.setdefault(op.index, {})["shape"] = lambda v, s=shape: list(_concrete(s, v))
        raw = op.raw_attrs.get("shape", "")
        der.raw.setdefault(op.index, {})["shape"] = lambda v, s=shape, raw=raw: _replace_ints(raw, _concrete(s, v))
    elif hasattr(attr, "dims") and tuple(attr.dims) == b0:
        der.attrs.setdefault(op.index, {})["shape"] = lambda v, s=shape, a=attr: replace(a, dims=_concrete(s, v))
    else:
        raise _pos_error(program, op, f"its shape attribute {op.raw_attrs.get('shape', '?')} is not the result shape "
                         f"{_shape_text(b0)}: cannot rewrite it")
    return shape


def _replace_ints(raw: str, values) -> str:
    """``[1 : i32, 128 : i32]`` with its integers replaced by ``values`` in order (falls back to a plain list)."""
    it = iter(values)
    matches = list(re.finditer(r"(?<![\w.])-?\d+", raw))
    if len(matches) != len(values):
        return "[" + ", ".join(f"{x} : i32" for x in values) + "]"
    return re.sub(r"(?<![\w.])-?\d+", lambda m: str(next(it)), raw)


def _slice(program: Program, op: Op, src: Shape, der: Derivation) -> Shape:
    a0 = op.operands[0].type.shape
    begins, ends, steps = (list(op.attrs.get(k) or []) for k in ("begins", "ends", "step"))
    if not len(begins) == len(ends) == len(steps) == len(a0):
        raise _pos_error(program, op, "slice begins/ends/step do not have one entry per dim")
    out = list(sympy.Integer(d) for d in op.results[0].type.shape)
    new_ends: list[Any] = list(ends)
    for d, e in enumerate(src):
        if not e.has(V):
            continue
        if begins[d] == 0 and steps[d] == 1 and ends[d] == a0[d]:
            out[d] = e
            new_ends[d] = e
        else:
            raise _pos_error(program, op, f"slice [{begins[d]}:{ends[d]}:{steps[d]}] of dim {d} (size {a0[d]}) is not "
                             f"the whole dim: whether it scales with {der.ref.spec} is not known")
    if any(isinstance(x, sympy.Expr) and x.has(V) for x in new_ends):
        der.attrs.setdefault(op.index, {})["ends"] = lambda v, ne=tuple(new_ends): [
            int(x.subs(V, v)) if isinstance(x, sympy.Expr) else x for x in ne]
        raw = op.raw_attrs.get("ends", "")
        der.raw.setdefault(op.index, {})["ends"] = lambda v, ne=tuple(new_ends), raw=raw: _replace_ints(
            raw, [int(x.subs(V, v)) if isinstance(x, sympy.Expr) else x for x in ne])
    return tuple(out)


def _conv(program: Program, op: Op, ins: list[Shape | None], der: Derivation) -> list[Shape]:
    """conv2d / pools: the batch scales (``batch_size``); input [N, H, W, C] or flattened [1, 1, N*H*W, C]."""
    ref = der.ref
    x = ins[0]
    if x is None or not _is_sym(x) or any(_is_sym(s) for s in ins[1:]):
        raise _pos_error(program, op, f"only the batch of its input may scale with {ref.spec} (weights and bias stay)")
    if x[-1].has(V):
        raise _pos_error(program, op, f"its channels would scale with {ref.spec}: only the batch may")
    n0 = op.attrs.get("batch_size")
    h, w = op.attrs.get("input_height"), op.attrs.get("input_width")
    if not all(isinstance(t, int) for t in (n0, h, w)):
        raise _pos_error(program, op, "needs integer batch_size, input_height and input_width attributes")
    rows = sympy.expand(sympy.Mul(*x[:-1]))
    batch = sympy.expand(rows / (h * w))
    if sympy.expand(batch.subs(V, ref.current)) != n0:
        raise _pos_error(program, op, f"its input {_shape_text(op.operands[0].type.shape)} does not hold "
                         f"batch_size {n0} x {h} x {w}")
    r0 = op.results[0].type.shape
    if len(r0) != 4 or (r0[0] * r0[1] * r0[2]) % n0:
        raise _pos_error(program, op, f"its result {_shape_text(r0)} is not [N, H, W, C] or [1, 1, N*H*W, C]")
    if r0[0] == n0 and len(x) == 4 and x[0].has(V) and not any(d.has(V) for d in x[1:]):
        out = (batch, sympy.Integer(r0[1]), sympy.Integer(r0[2]), sympy.Integer(r0[3]))
    elif r0[0] == 1 and r0[1] == 1:
        out = (sympy.Integer(1), sympy.Integer(1), sympy.expand(batch * (r0[2] // n0)), sympy.Integer(r0[3]))
    else:
        raise _pos_error(program, op, f"cannot tell which dim of its result {_shape_text(r0)} carries the batch")
    der.attrs.setdefault(op.index, {})["batch_size"] = lambda v, b=batch: int(b.subs(V, v))
    raw = op.raw_attrs.get("batch_size", "")
    der.raw.setdefault(op.index, {})["batch_size"] = lambda v, b=batch, raw=raw: _replace_ints(raw, [int(b.subs(V, v))])
    return [out] + [tuple(sympy.Integer(d) for d in r.type.shape) for r in op.results[1:] if isinstance(r.type, TensorType)]


# ---------------------------------------------------------------------------
# instantiation
# ---------------------------------------------------------------------------


def _linear_map(shape: tuple[int, ...], tiled: bool) -> AffineMapV:
    """The collapsed affine map tt-mlir builds for ``shape`` (:func:`ttanalyze.ir.emit.linear_map_text`)."""
    rank = len(shape)
    dims = tuple(sympy.Symbol(f"d{i}", integer=True, nonnegative=True) for i in range(rank))
    text = linear_map_text(shape, tiled)
    if rank == 0:
        return AffineMapV((), (), (sympy.Integer(0), sympy.Integer(0)), text)
    if rank == 1:
        return AffineMapV(dims, (), (sympy.Integer(0), dims[0]), text)
    padded = tile_padded_shape(shape) if tiled else shape
    terms = []
    for i in range(rank - 1):
        terms.append(dims[i] * math.prod(padded[i + 1:rank - 1]))
    return AffineMapV(dims, (), (sympy.Add(*terms), dims[-1]), text)


def retype(t: TensorType, shape: tuple[int, ...]) -> TensorType:
    """``t`` with logical shape ``shape`` (elements): memref and affine map of its layout recomputed.

    The memref follows :func:`ttanalyze.layout.derive_memref` (tt-mlir
    ``TTNNLayoutAttr::Builder::build``), the map the collapse of the tile-padded
    shape; grid, buffer type, memory layout and element type are kept.
    """
    lay = t.layout
    if lay is None:
        return TensorType(shape, t.element, None, t.encoding_text)
    tile = (lay.element.height, lay.element.width) if lay.is_tiled else None
    memref = derive_memref(shape, tile, lay.buffer_type, lay.memory_layout, tuple(lay.grid))
    linear = _linear_map(shape, lay.is_tiled)
    text = re.sub(r"memref<[\dx]+x", "memref<" + "x".join(map(str, memref)) + "x", lay.text or t.encoding_text, count=1)
    if lay.linear.text and lay.linear.text in text:
        text = text.replace(lay.linear.text, linear.text, 1)
    new = replace(lay, linear=linear, memref_shape=memref, text=text)
    return TensorType(shape, t.element, new, text)


def instantiate(program: Program, der: Derivation, v: int) -> Program:
    """A copy of ``program`` with the dimension at size ``v`` (elements): new types and attributes.

    The original program is not modified; ops keep their index, name, position and location.
    """
    types: dict[Value, TensorType] = {x: retype(x.type, _concrete(s, v)) for x, s in der.shapes.items()}
    funcs: list[Func] = []
    ops: list[Op] = []
    for f in program.funcs:
        nf = Func(f.name, [], [], [], f.kind, f.pos, f.private, f.loc_resolver)
        vmap: dict[Value, Value] = {}

        def copy(x: Value) -> Value:
            if x not in vmap:
                vmap[x] = Value(x.name, types.get(x, x.type), arg_name=x.arg_name, func=nf)
            return vmap[x]

        nf.args = [copy(x) for x in f.args]
        for op in f.ops:
            attrs, raw = dict(op.attrs), dict(op.raw_attrs)
            for name, fn in der.attrs.get(op.index, {}).items():
                if fn is None:
                    attrs.pop(name, None)
                    raw.pop(name, None)
                else:
                    attrs[name] = fn(v)
                    rawfn = der.raw.get(op.index, {}).get(name)
                    raw[name] = rawfn(v) if rawfn else str(attrs[name])
            new = Op(op.index, op.name, [copy(x) for x in op.operands], [], attrs, raw, op.pos, op.loc_text, nf,
                     op.callee)
            for r in op.results:
                nr = copy(r)
                nr.producer = new
                new.results.append(nr)
            for x in new.operands:
                x.users.append(new)
            nf.ops.append(new)
            ops.append(new)
        nf.returns = [copy(x) for x in f.returns]
        funcs.append(nf)
    ops.sort(key=lambda o: o.index)
    return Program(program.path, funcs, program.system_desc, ops, dict(program.module_attrs))


# ---------------------------------------------------------------------------
# 3. the search
# ---------------------------------------------------------------------------


@dataclass
class Binding:
    """Why a size does not fit: the first overflowing op and its numbers (bytes, per core).

    ``used`` vs ``budget``: the CB region end vs ``l1_size`` (TTA010
    max_l1_size), vs the lowest live L1 buffer (TTA010 clash), or the live L1
    tensors vs the L1 bank (TTA004); both 0 for a TTA013 refusal.  Sizes refused
    without an analyzer call (:data:`SIZE_CAPS`): ``dram-capacity`` compares
    the tensor's bytes with the whole device DRAM (bytes, not per core);
    ``model-budget`` has both 0.
    """

    rule: str
    op_index: int
    op_name: str
    line: int
    col: int
    loc: str
    used: int
    budget: int
    what: str
    message: str


@dataclass
class Probe:
    """One analyzer call: size ``v`` fits or not; ``margin`` = smallest headroom in bytes (negative: overflow)."""

    v: int
    fits: bool
    margin: int
    binding: Binding | None
    metric: dict[int, int]  # op index -> L1 figure (bytes per core: CB end or live L1), for the learned model
    dram_over: bool = False  # a TTA005 finding (DRAM per bank) at this size
    seconds: float = 0.0  # wall time of the analyzer call (0: none, a size cap)
    timed_out: bool = False  # the call was stopped at PROBE_SECONDS: whether v fits is unknown


class _OverBudget(BaseException):
    """An analyzer call ran past its time budget (a BaseException: no ``except Exception`` swallows it)."""


@contextlib.contextmanager
def _time_budget(seconds: float):
    """Raise :class:`_OverBudget` in the block after ``seconds`` of wall time (SIGALRM; main thread only,
    elsewhere the block runs unbounded)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise _OverBudget()

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class LimitResult:
    """The answer of :func:`find_limit` (sizes in elements, bytes per core).

    Attributes:
        dim / current: the dimension and its size in the program.
        largest: the largest size that fits (None: none in [lower bound, max]).
        first_failing: the next legal size after ``largest`` and its binding op
            (None: nothing overflows up to ``max_value``).
        step: sizes are ``current + k * step`` (divisibility of derived dims).
        calls: analyzer calls; seconds: wall time; probes: every size tried.
        current_fits: whether the program as written fits.
        searched_max: when a slow analyzer call stopped the growth, the
            largest size searched (elements); None: up to ``max_value``.
    """

    path: str
    dim: DimRef
    max_value: int
    step: int
    lower_bound: int
    largest: int | None
    first_failing: int | None
    binding: Binding | None
    current_fits: bool
    calls: int
    seconds: float
    probes: list[Probe]
    reached_ops: int
    notes: list[str] = field(default_factory=list)
    searched_max: int | None = None
    interrupted: bool = False  # Ctrl-C stopped the search: the answer is the best found so far

    def record(self) -> dict:
        """JSON-ready dict (schema ``ttanalyze.limits/1``)."""
        b = self.binding
        return {
            "schema": "ttanalyze.limits/1", "path": self.path,
            "dim": {"spec": self.dim.spec, "arg": self.dim.arg.name, "arg_name": self.dim.arg.arg_name,
                    "index": self.dim.dim, "current": self.dim.current,
                    "tied": [{"arg": a.name, "arg_name": a.arg_name, "index": d} for a, d in self.dim.tied]},
            "max": self.max_value, "searched_max": self.searched_max, "step": self.step,
            "lower_bound": self.lower_bound,
            "current_fits": self.current_fits, "largest": self.largest, "first_failing": self.first_failing,
            "binding": None if b is None else {
                "rule": b.rule, "op": b.op_name, "op_index": b.op_index, "line": b.line, "col": b.col, "loc": b.loc,
                "bytes_used": b.used, "bytes_budget": b.budget, "what": b.what, "message": b.message},
            "analyzer_calls": self.calls, "seconds": round(self.seconds, 3), "ops_reached": self.reached_ops,
            "probes": [{"v": p.v, "fits": p.fits, "margin": p.margin} for p in self.probes],
            "notes": self.notes,
        }

    def text(self) -> str:
        """The human answer (a few lines)."""
        d = self.dim
        head = f"{self.path}: {d.spec} = {d.label}, now {fmt.num(d.current)}"
        if self.step > 1:
            head += f" (sizes in steps of {self.step})"
        lines = [head]
        if self.first_failing is None and self.searched_max is not None:
            lines.append(f"  nothing overflows L1 up to {fmt.num(self.searched_max)} (the search stopped there, "
                         f"see the note; --max {fmt.num(self.max_value)})")
        elif self.first_failing is None:
            lines.append(f"  nothing overflows L1 up to --max {fmt.num(self.max_value)}")
        elif self.largest is None:
            lines.append(f"  no size fits: {fmt.num(self.first_failing)} (the smallest legal) already overflows")
        else:
            lines.append(f"  largest that fits {fmt.num(self.largest)}; first failing {fmt.num(self.first_failing)}"
                         + ("" if self.current_fits else " (the program as written overflows)"))
        b = self.binding
        if b is not None:
            loc = f" {b.loc}" if b.loc else ""
            lines.append(f"  binding op {b.op_name} at {self.path}:{b.line}:{b.col}{loc}: {b.rule} {b.what}")
        lines.append(f"  {self.calls} analyzer calls, {self.seconds:.2f} s; {self.reached_ops} ops scale with {d.spec}")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


class _Oracle:
    def __init__(self, program: Program, der: Derivation, arch: str | None, l1_small_size: int | None, tt_metal: str):
        self.program, self.der = program, der
        self.arch, self.l1_small_size, self.tt_metal = arch, l1_small_size, tt_metal
        self.cache: dict[int, Probe] = {}
        self.calls = 0
        self.seconds = PROBE_SECONDS
        try:
            self.device: Arch = resolve_arch(program.system_desc, arch, l1_small_size)
        except ValueError as exc:
            raise InputError(str(exc), program.path) from None
        from .analysis import check_shapes

        # ops whose shape rule agrees with the IR as written: it must keep agreeing when scaled
        self.agree = set()
        for i in der.reached:
            op = program.ops[i]
            c = check_shapes(op)
            if c.status == "checked" and list(c.shapes or []) == [r.type.shape for r in op.results if r.is_tensor]:
                self.agree.add(i)

    def analysis(self, v: int) -> Analysis:
        self.calls += 1
        prog = instantiate(self.program, self.der, v)
        try:
            return analyze(prog, self.arch, self.l1_small_size, self.tt_metal)
        except ValueError as exc:
            raise InputError(str(exc), self.program.path) from None

    def __call__(self, v: int) -> Probe:
        if v in self.cache:
            return self.cache[v]
        from .rules import run

        cap = self.size_cap(v)
        if cap is not None:
            probe = self.cache[v] = Probe(v, False, -1, cap, {})
            return probe
        start = time.perf_counter()
        try:
            with _time_budget(self.seconds):
                a = self.analysis(v)
                self._check_shapes(a, v)
                findings = run(a, ["TTA004", "TTA005", "TTA010", "TTA013"])
        except _OverBudget:  # unknown whether v fits: the search treats it as the end of what it can answer
            what = f"the analyzer call took more than the {PROBE_SECONDS:.0f} s budget: not known whether it fits"
            binding = Binding("time-budget", -1, "?", 0, 0, "", 0, 0, what, what)
            probe = self.cache[v] = Probe(v, False, -1, binding, {}, False, time.perf_counter() - start,
                                          timed_out=True)
            return probe
        # a size runs only when both L1 and DRAM hold it: a DRAM allocation tt-metal refuses (TTA005 error) fails
        dram_over = any(f.rule == "TTA005" for f in findings)
        findings = [f for f in findings if f.rule != "TTA005" or f.severity == "error"]
        bad = [f for f in findings if f.rule != "TTA013" or _L1_REJECTION.search(f.data.get("reason", ""))]
        bad.sort(key=lambda f: (f.op_index if f.op_index is not None else -1, f.rule))
        metric, margin = _margins(a)
        binding = _binding(a, bad[0]) if bad else None
        if binding is not None:
            margin = min(margin, binding.budget - binding.used) if binding.budget else min(margin, -1)
        probe = Probe(v, not bad, margin, binding, metric, dram_over, time.perf_counter() - start)
        self.cache[v] = probe
        return probe

    def size_cap(self, v: int) -> Binding | None:
        """Why the program cannot be analyzed at ``v`` (module docstring), or None.

        The first tensor (in program order) with more than :data:`MAX_ELEMENTS`
        elements, else the first device tensor whose bytes (tile-padded) exceed
        ``usable_dram_per_bank x num_dram_channels``.
        """
        arch = self.device
        capacity = arch.usable_dram_per_bank * arch.num_dram_channels
        sized = [(x, _concrete(s, v)) for x, s in self.der.shapes.items() if isinstance(x.type, TensorType)]
        for x, shape in sized:
            n = math.prod(shape)
            if n > MAX_ELEMENTS:
                return self._cap_binding(x, "model-budget", 0, 0,
                                         f"{x.name} {_shape_text(shape)} {x.type.element} has {fmt.num(n)} elements, "
                                         f"more than the {fmt.num(MAX_ELEMENTS)} (2^34) the analyzer models: "
                                         "not analyzed")
        for x, shape in sized:
            lay = x.type.layout
            if lay is None or lay.buffer_type not in ("dram", "l1", "l1_small"):
                continue
            need = _device_bytes(shape, lay)
            if need is not None and need > capacity:
                return self._cap_binding(
                    x, "dram-capacity", need, capacity,
                    f"{x.name} {_shape_text(shape)} {x.type.element} ({lay.buffer_type}) needs {fmt.nbytes(need)}, "
                    f"more than the device's whole DRAM ({fmt.nbytes(capacity)}: {arch.num_dram_channels} channels x "
                    f"{fmt.nbytes(arch.usable_dram_per_bank)} usable): it cannot run at this size, not analyzed")
        return None

    def _cap_binding(self, x: Value, rule: str, used: int, budget: int, what: str) -> Binding:
        """The tensor's producer (or, for an argument, its first user) as the binding op."""
        op = x.producer or (x.users[0] if x.users else None)
        if op is None:
            pos, name, index, loc = self.program.entry.pos, f"func.func @{self.program.entry.name}", -1, ""
        else:
            pos, name, index, loc = op.pos, op.name, op.index, op.loc_name
        return Binding(rule, index, name, pos.line, pos.col, loc, used, budget, what, what)

    def _check_shapes(self, a: Analysis, v: int) -> None:
        """The project's shape rules must agree with the instantiated result types (where they agree at v0)."""
        for i in sorted(self.agree):
            check = a.shape_checks.get(i)
            op = a.program.ops[i]
            if check is None or check.status == "unchecked" or check.status == "unmodeled":
                continue
            declared = [r.type.shape for r in op.results if isinstance(r.type, TensorType)]
            if check.status == "invalid" or list(check.shapes or []) != declared:
                why = check.error or f"its shape rule gives {[_shape_text(s) for s in check.shapes or []]}"
                raise InputError(f"{op.name}: at {self.der.ref.spec} = {v} the scaled op is not valid: {why}",
                                 self.program.path, op.pos)


def _device_bytes(shape: tuple[int, ...], lay) -> int | None:
    """Bytes of a tensor of ``shape`` in layout ``lay``: whole tiles when tiled (padding counted), else
    elements x element size; page alignment is not counted (a lower bound).  None for an unknown tile size."""
    if lay.is_tiled:
        dims = (1, 1) + tuple(shape)
        try:
            tile = lay.element.bytes
        except Exception:  # noqa: BLE001 - the analyzer reports bad tiles itself
            return None
        return (math.prod(dims[:-2]) * ceil_div(dims[-2], lay.element.height)
                * ceil_div(dims[-1], lay.element.width) * tile)
    return math.prod(shape) * (lay.dtype.scalar_bytes or 1)


def _margins(a: Analysis) -> tuple[dict[int, int], int]:
    """Per op: its L1 figure (bytes per core) and the program's smallest headroom (bytes)."""
    arch = a.arch
    metric: dict[int, int] = {}
    margin = 1 << 62
    for i, point in a.memory.points.items():
        metric[i] = point.l1_per_core
        margin = min(margin, arch.usable_l1 - point.l1_per_core)
    for i, prog in a.programs.items():
        point = a.memory.points.get(i)
        live = point.l1_per_core if point else 0
        for p in prog.stages:
            _, cb = p.busiest_core()
            if cb is None:
                continue
            held = live + p.l1_buffers_per_core
            limit = arch.l1_size - arch.l1_small_size - held if held else arch.l1_size
            end = arch.l1_unreserved_base + cb
            metric[i] = max(metric.get(i, 0), end)
            margin = min(margin, limit - end)
    return metric, margin


def _binding(a: Analysis, f: Finding) -> Binding:
    op = a.program.ops[f.op_index] if f.op_index is not None else None
    d = f.data
    if f.rule == "TTA004":
        used, budget = d["bytes_used"], d["bytes_available"]
        what = (f"{fmt.nbytes(used)} of live L1 tensors per core vs the {fmt.nbytes(budget)} L1 bank "
                f"(over by {fmt.nbytes(used - budget)})")
    elif f.rule == "TTA005":
        used, budget = d["bytes_used"], d["bytes_available"]
        what = (f"{fmt.nbytes(used)} of live DRAM tensors per bank vs the {fmt.nbytes(budget)} DRAM bank "
                f"(over by {fmt.nbytes(used - budget)})")
    elif f.rule == "TTA010" and d.get("check") == "max_l1_size":
        used, budget = d["reported_end"], d["l1_size"]
        what = (f"CBs of {d['factory']} grow to {fmt.nbytes(used)} (l1_unreserved_base {fmt.num(d['l1_unreserved_base'])} "
                f"+ {fmt.nbytes(used - d['l1_unreserved_base'])} of CBs per core) vs l1_size {fmt.nbytes(budget)}")
    elif f.rule == "TTA010":
        used, budget = d["cb_region_end"], d["lowest_l1_buffer"]
        what = (f"CBs of {d['factory']} end at {fmt.nbytes(used)} ({fmt.nbytes(d['cb_bytes'])} of CBs per core) but "
                f"live L1 buffers start at {fmt.nbytes(budget)}")
    else:
        used = budget = 0
        what = f"refused: {d.get('reason', f.message)}"
    return Binding(f.rule, f.op_index if f.op_index is not None else -1, op.name if op else "?", f.pos.line,
                   f.pos.col, op.loc_name if op else "", used, budget, what, f.message)


def _z3_next(der: Derivation, v0: int, lo: int, hi: int, max_value: int, model: tuple[int, int, int] | None = None,
             at_least: int | None = None) -> int | None:
    """The next size to try, from z3: legal (bounds, divisibility) and in ``(lo, hi)``.

    With ``model`` = (a, b, c): the largest size with ``a*v + b <= c`` (the learned L1 bound); with
    ``at_least``: the smallest size >= it; else the largest.  None when no legal size is left.
    """
    v = z3.Int("v")
    opt = z3.Optimize()
    opt.add(v >= der.lower_bound, v <= max_value, v > lo, v < hi)
    step = der.modulus
    if step > 1:
        opt.add((v - v0) % step == 0)
    if model is not None:
        a, b, c = model
        opt.add(a * v + b <= c)
    if at_least is not None:
        opt.add(v >= at_least)
        opt.minimize(v)
    else:
        opt.maximize(v)
    if opt.check() != z3.sat:
        return None
    return opt.model()[v].as_long()


def find_limit(program: Program, spec: str, max_value: int = DEFAULT_MAX, arch: str | None = None,
               l1_small_size: int | None = None, tt_metal: str = DEFAULT_TT_METAL,
               auto_matmul_config: bool = False) -> LimitResult:
    """The largest size of dimension ``spec`` at which no op overflows L1 (module docstring, step 3).

    Args:
        program: a parsed program (:func:`ttanalyze.ir.parse.parse_file`).
        spec: the dimension (:func:`resolve_dim`).
        max_value: the largest size to consider (elements).
        arch / l1_small_size / tt_metal: as :func:`ttanalyze.analysis.analyze`.
        auto_matmul_config: see :func:`derive`.

    Returns:
        A :class:`LimitResult`; ``largest`` fits and ``first_failing`` (the next
        legal size) overflows at ``binding``, both checked by the analyzer.

    Raises:
        InputError: bad ``spec`` or ``max_value``, an op the dimension cannot
            scale through (file:line:col), or a program the analyzer rejects.
    """
    start = time.perf_counter()
    ref = resolve_dim(program, spec)
    if max_value < 1:
        raise InputError(f"--max must be >= 1, not {max_value}", program.path)
    der = derive(program, ref, auto_matmul_config)
    oracle = _Oracle(program, der, arch, l1_small_size, tt_metal)
    v0 = ref.current
    step = der.modulus
    lo, hi = 0, max_value + 1  # lo: largest size known to fit (0: none); hi: smallest known to fail
    ceiling = max_value  # the growth stops here after a slow analyzer call (PROBE_SECONDS)
    slow: Probe | None = None
    probes: list[Probe] = []
    fails: list[Probe] = []

    def probe(v: int) -> Probe:
        nonlocal lo, hi, ceiling, slow
        p = oracle(v)
        if p not in probes:
            probes.append(p)
        if p.fits:
            lo = max(lo, v)
            if p.seconds > PROBE_SECONDS and v < ceiling:
                ceiling, slow = v, p
        else:
            hi = min(hi, v)
            fails.append(p)
        return p

    legal = lambda v: v >= der.lower_bound and (v - v0) % step == 0 and 1 <= v <= max_value  # noqa: E731
    current = oracle(v0)
    if legal(v0):
        probe(v0)
    bisect = False
    interrupted = False
    try:
        while len(probes) < MAX_PROBES:
            width = hi - lo
            model = None
            if hi > max_value:
                # no failure yet: grow geometrically (GROWTH x the largest fitting size), then the largest legal size
                nxt = _z3_next(der, v0, lo, hi, ceiling, at_least=max(GROWTH * lo, der.lower_bound))
                nxt = nxt if nxt is not None else _z3_next(der, v0, lo, hi, ceiling)
            else:
                model = None if bisect else _learn(probes, fails)
                nxt = _z3_next(der, v0, lo, hi, max_value, model=model) if model is not None else None
                if nxt is None:
                    model = None
                    nxt = _z3_next(der, v0, lo, hi, max_value, at_least=(lo + hi) // 2)
            if nxt is None:
                break
            probe(nxt)
            bisect = model is not None and (hi - lo) * 2 > width  # the learned bound stalled: bisect once
    except (KeyboardInterrupt, Interrupted):  # Ctrl-C: answer with the sizes probed so far
        interrupted = True
    largest = lo if lo >= 1 else None
    first_failing = hi if hi <= max_value else None
    binding = oracle.cache[first_failing].binding if first_failing in oracle.cache else None
    notes = []
    if interrupted:
        notes.append(f"interrupted after {len(probes)} probes: the best size found so far "
                     + (f"is {fmt.num(largest)}" if largest is not None else "is none"))
    stopped = slow is not None and first_failing is None
    if stopped:
        notes.append(f"search stopped at v = {fmt.num(slow.v)}: the analyzer call took {slow.seconds:.1f} s (budget "
                     f"{PROBE_SECONDS:.0f} s per call); larger sizes were not probed")
    elif not interrupted and _z3_next(der, v0, lo, hi, max_value) is not None:
        notes.append(f"search stopped after {len(probes)} probes: the boundary lies between {lo} and {hi}")
    elif largest is not None and first_failing is not None and first_failing - largest != step:
        notes.append(f"no legal size between {largest} and {first_failing}")
    if first_failing is not None and not interrupted:
        # the L1 figures are piecewise (ceil over tiles and cores): check that the next sizes keep failing
        above = [x for x in (first_failing + step, first_failing + 2 * step) if legal(x)]
        again = [x for x in above if oracle(x).fits]
        if again:
            notes.append(f"not monotone: {fmt.num(again[0])} fits again (only sizes up to {fmt.num(largest or 0)} "
                         "are reported as fitting)")
    capped = sorted((p for p in probes if p.binding is not None and p.binding.rule in SIZE_CAPS), key=lambda p: p.v)
    if capped:
        c = capped[0]
        why = ("one of the program's tensors exceeds the device's DRAM" if c.binding.rule == "dram-capacity"
               else f"one of the program's tensors exceeds the model budget of {fmt.num(MAX_ELEMENTS)} elements")
        if c.binding.rule == "time-budget":
            notes.append(f"the analyzer call at v = {fmt.num(c.v)} took more than {PROBE_SECONDS:.0f} s and was "
                         "stopped: sizes from there on are not known to fit")
        elif c.v == first_failing:
            notes.append(f"search stopped at v = {fmt.num(c.v)}: {why} (the binding op above): sizes from there on "
                         "cannot run and are not analyzed")
        else:
            notes.append(f"from {fmt.num(c.v)} on (probed), {why}: those sizes were not analyzed")
    dram = [p.v for p in probes if p.fits and p.dram_over]
    if dram:
        notes.append(f"from {fmt.num(min(dram))} on (probed), the tensors overflow DRAM (TTA005), whatever L1 does")
    if der.lower_bounds:
        b, why = max(der.lower_bounds)
        if b > 1:
            notes.append(f"sizes below {b} are not legal: {why}")
    return LimitResult(program.path, ref, max_value, step, der.lower_bound, largest, first_failing, binding,
                       current.fits, oracle.calls,
                       time.perf_counter() - start, probes, len(der.reached), notes,
                       searched_max=ceiling if stopped else None, interrupted=interrupted)


def _learn(probes: list[Probe], fails: list[Probe]) -> tuple[int, int, int] | None:
    """A linear bound ``a*v + b <= c`` (integers) on the L1 figure of the op that binds at the smallest
    failing size: the line through its figure there and at the nearest other probe (bytes per core)."""
    bad = min(fails, key=lambda p: p.v, default=None)
    if bad is None or bad.binding is None or not bad.binding.budget or bad.binding.rule in SIZE_CAPS:
        return None
    i = bad.binding.op_index
    others = [p for p in probes if p.v != bad.v and i in p.metric]
    if not others:
        return None
    other = min(others, key=lambda p: abs(p.v - bad.v))
    (va, ya), (vb, yb) = sorted([(other.v, other.metric[i]), (bad.v, bad.binding.used)])
    num, den = yb - ya, vb - va
    if num <= 0:
        return None
    # y(v) = ya + num * (v - va) / den <= budget  <=>  num * v <= (budget - ya) * den + num * va
    return (num, -num * va, (bad.binding.budget - ya) * den)
