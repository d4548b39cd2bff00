"""Registry of op models, keyed by op name.

An op model is what ttanalyze believes about one op: the attributes it reads,
the logical shape of each result (from the operands and attributes), and the
program its tt-metal factory builds (cores and circular buffers, see
:mod:`ttanalyze.ops.cb`).  The family modules (``data_movement``, ``eltwise``,
``matmul``, ``reduction``, ``conv``, ``creation``) register their ops here; an op
without a model is a visible "unmodeled" finding, never a silent guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..ir.model import Op
from .cb import CBFn
from .spec import SpecFn

Shape = tuple[int, ...]


class ShapeError(ValueError):
    """The op's operands and attributes admit no result (e.g. mismatched dims)."""


InferFn = Callable[[Op], "list[Shape] | None"]


@dataclass(frozen=True)
class OpModel:
    """What ttanalyze models of one op.

    Attributes:
        name: the op name (``ttnn.reshape``).
        family: ``data_movement``, ``eltwise_unary``, ``eltwise_binary``,
            ``matmul``, ``reduction``, ``conv``, ``pool``, ``creation``,
            ``memory`` or ``host``.
        attrs: attribute names the model reads; any other attribute on the op
            is reported as unmodeled.
        infer: the logical shape of each result from operands and attributes;
            None when the result shapes are not derivable (then unchecked).
            Raises ShapeError when no result is possible.
        source: the tt-mlir/tt-metal file (and commit) the shape rule follows.
    """

    name: str
    family: str
    attrs: frozenset[str]
    infer: InferFn | None
    source: str


REGISTRY: dict[str, OpModel] = {}
CB_MODELS: dict[str, CBFn] = {}
SPEC_MODELS: dict[str, SpecFn] = {}
# How an op's program model was checked (docs/coverage.md): "mock" (replayed on the mock device, CBs
# compared), "source" (read from the program factory, not runnable on the mock) or "none" (no program).
CHECKS: dict[str, tuple[str, str]] = {}
# The device operations (profiler OP CODEs) an op's programs run, for the cost model's coverage.
DEVICE_OPS: dict[str, tuple[str, ...]] = {}


def register(names: str | tuple[str, ...], family: str, attrs: tuple[str, ...] = (), source: str = ""):
    """Decorator: register ``fn`` as the shape rule of every op in ``names``."""
    if isinstance(names, str):
        names = (names,)

    def wrap(fn: InferFn | None) -> InferFn | None:
        for name in names:
            if name in REGISTRY:
                raise RuntimeError(f"op model for {name} registered twice")
            REGISTRY[name] = OpModel(name, family, frozenset(attrs), fn, source)
        return fn

    return wrap


def register_passive(names: tuple[str, ...], family: str, attrs: tuple[str, ...] = (), source: str = "") -> None:
    """Register ops whose results are not shape-checked (no tensor results, host ops...)."""
    register(names, family, attrs, source)(None)


def register_check(names: str | tuple[str, ...], how: str, where: str,
                   device_ops: tuple[str, ...] = ()) -> None:
    """Record how the program models of ``names`` were checked and which device operations they run.

    Args:
        how: ``mock`` (CBs compared with a replay on the mock device), ``source`` (from the
            program factory's source only) or ``none`` (the op runs no device program).
        where: the test or source file that shows it.
        device_ops: the device operations' profiler OP CODEs (``SDPAOperation``...).
    """
    if how not in ("mock", "source", "none"):
        raise ValueError(f"unknown check kind {how!r}")
    for name in (names,) if isinstance(names, str) else names:
        CHECKS[name] = (how, where)
        if device_ops:
            DEVICE_OPS[name] = tuple(device_ops)


def lookup(name: str) -> OpModel | None:
    """The model of op ``name``, or None if ttanalyze does not model it."""
    return REGISTRY.get(name)


def register_cb(names: str | tuple[str, ...]):
    """Decorator: register ``fn`` as the CB model (:mod:`ttanalyze.ops.cb`) of every op in ``names``."""
    if isinstance(names, str):
        names = (names,)

    def wrap(fn: CBFn) -> CBFn:
        for name in names:
            if name in CB_MODELS:
                raise RuntimeError(f"CB model for {name} registered twice")
            CB_MODELS[name] = fn
        return fn

    return wrap


def cb_model(name: str) -> CBFn | None:
    """The CB model of op ``name``, or None when its program is not modeled."""
    return CB_MODELS.get(name)


def tensor_shape(op: Op, i: int) -> Shape:
    """Logical shape of operand ``i``.

    Raises:
        ShapeError: the operand is missing or not a tensor.
    """
    if i >= len(op.operands) or not op.operands[i].is_tensor:
        raise ShapeError(f"{op.name} expects a tensor operand #{i}")
    return op.operands[i].type.shape


def int_list(op: Op, name: str) -> list[int]:
    """An integer-list attribute (``array<i64: ...>`` or ``[1 : i32, ...]``).

    Raises:
        ShapeError: the attribute is missing or not a list of integers.
    """
    value = op.attrs.get(name)
    if isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        return list(value)
    if hasattr(value, "dims"):
        return list(value.dims)
    raise ShapeError(f"{op.name} needs an integer list attribute '{name}'")


def int_attr(op: Op, name: str, default: int | None = None) -> int:
    """An integer attribute, or ``default`` when absent.

    Raises:
        ShapeError: absent without default, or not an integer.
    """
    value = op.attrs.get(name, default)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ShapeError(f"{op.name} needs an integer attribute '{name}'")


def norm_dim(dim: int, rank: int, op: Op) -> int:
    """A possibly negative dim index normalized to ``[0, rank)``.

    Raises:
        ShapeError: out of range.
    """
    d = dim + rank if dim < 0 else dim
    if not 0 <= d < rank:
        raise ShapeError(f"{op.name}: dim {dim} is out of range for rank {rank}")
    return d


def register_spec(names: str | tuple[str, ...]):
    """Decorator: register ``fn`` as the device-output model (:mod:`ttanalyze.ops.spec`) of ``names``."""
    if isinstance(names, str):
        names = (names,)

    def wrap(fn: SpecFn) -> SpecFn:
        for name in names:
            if name in SPEC_MODELS:
                raise RuntimeError(f"output model for {name} registered twice")
            SPEC_MODELS[name] = fn
        return fn

    return wrap


def spec_model(name: str) -> SpecFn | None:
    """The device-output model of op ``name``, or None when results are taken as declared."""
    return SPEC_MODELS.get(name)
