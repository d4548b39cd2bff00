"""Number and shape formatting shared by rules and reports."""

from __future__ import annotations


def num(n: int | float) -> str:
    """``19537920 -> '19,537,920'``; floats get one decimal."""
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.1f}"
    return f"{int(n):,}"


def shape(s: tuple[int, ...] | list[int]) -> str:
    """``(1, 768, 4) -> '1x768x4'``."""
    return "x".join(str(d) for d in s) if len(s) else "scalar"


def nbytes(n: int) -> str:
    """``1499136 -> '1,499,136 B'``."""
    return f"{int(n):,} B"


def pct(x: float) -> str:
    """``22.36 -> '22.4%'``."""
    return f"{x:.1f}%"
