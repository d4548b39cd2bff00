"""Named operands of ops with optional or variadic operands, as ODS assigns them.

An op's operands are the groups its TableGen ``arguments`` list (``TTNNOps.td`` @19c86fca): one
value each, or ``Optional<...>`` (0 or 1) or ``Variadic<...>`` (any number).  With the
``AttrSizedOperandSegments`` trait the ``operandSegmentSizes`` attribute gives each group's size;
without it ODS allows a single variable group, which takes every operand the fixed groups leave.
"""

from __future__ import annotations

from ..ir.model import Op, Value
from .registry import ShapeError


def operand_groups(op: Op, spec: tuple[str, ...]) -> dict[str, list[Value]]:
    """The operands of ``op`` by group name.

    Args:
        op: the op.
        spec: its operand groups in ODS order; a name ending in ``?`` is optional, ``*`` variadic.

    Raises:
        ShapeError: the operands do not fit the groups (wrong count, segment sizes that do not
            add up, or several variable groups without ``operandSegmentSizes``).
    """
    names = [s.rstrip("?*") for s in spec]
    variable = [s[-1] in "?*" for s in spec]
    vals = list(op.operands)
    seg = op.attrs.get("operandSegmentSizes")
    if seg is not None:
        sizes = list(getattr(seg, "dims", seg))
        if len(sizes) != len(spec) or sum(sizes) != len(vals):
            raise ShapeError(f"{op.name}: operandSegmentSizes {sizes} does not fit its {len(vals)} operands")
    else:
        fixed = len(spec) - sum(variable)
        extra = len(vals) - fixed
        if extra < 0 or (extra and not any(variable)):
            raise ShapeError(f"{op.name} expects {fixed} operands, got {len(vals)}")
        if extra and sum(variable) > 1:
            # No operandSegmentSizes although the op (today) has several variable groups: the file comes
            # from a tt-mlir whose op had fewer of them (MLIR prints the attribute whenever the op has the
            # AttrSizedOperandSegments trait), e.g. scaled_dot_product_attention with only attention_mask
            # (tt-xla dumps of 2026-03).  Optional groups were added at the end, so the operands fill the
            # optional groups in order; variadic groups stay ambiguous.
            if any(s.endswith("*") for s in spec) or extra > sum(variable):
                raise ShapeError(f"{op.name}: {len(vals)} operands for several optional groups without "
                                 "operandSegmentSizes")
            optional_seen, sizes = 0, []
            for v in variable:
                sizes.append(1 if not v else int(optional_seen < extra))
                optional_seen += v
        else:
            sizes = [extra if v else 1 for v in variable]
    out: dict[str, list[Value]] = {}
    pos = 0
    for name, size, spec_name in zip(names, sizes, spec):
        if spec_name.endswith("?") and size > 1:
            raise ShapeError(f"{op.name}: optional operand '{name}' given {size} values")
        out[name] = vals[pos:pos + size]
        pos += size
    return out


def tensor_or_none(groups: dict[str, list[Value]], name: str) -> Value | None:
    """The single value of group ``name``, None when the group is empty."""
    vals = groups.get(name) or []
    return vals[0] if vals else None


def shape_of(op: Op, value: Value | None, what: str) -> tuple[int, ...]:
    """The logical shape of a tensor operand.

    Raises:
        ShapeError: missing or not a tensor.
    """
    if value is None or not value.is_tensor:
        raise ShapeError(f"{op.name} needs a tensor {what}")
    return tuple(value.type.shape)
