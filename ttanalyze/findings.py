"""Findings: what a rule reports, with the numbers that prove it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import SourcePos

SEVERITIES = ("info", "warning", "error")


def severity_rank(severity: str) -> int:
    """0 for info, 1 for warning, 2 for error.

    Raises:
        ValueError: an unknown severity.
    """
    try:
        return SEVERITIES.index(severity)
    except ValueError:
        raise ValueError(f"unknown severity '{severity}': expected one of {', '.join(SEVERITIES)}") from None


@dataclass(frozen=True)
class Note:
    """A related location (the producer of a bad operand, the largest live tensor...)."""

    pos: SourcePos
    message: str


@dataclass
class Finding:
    """One rule verdict on one op.

    Attributes:
        rule: stable rule id (``TTA001``).
        name: rule name (``reshape-volume-mismatch``).
        severity: ``error``, ``warning`` or ``info``.
        message: one line, with the numbers.
        path / pos: file and 1-based line:col of the op.
        op_index: index of the op in :attr:`Program.ops`, None for program-level findings.
        notes: related locations.
        data: the numbers behind the message, by name (bytes, tiles, shapes...).
    """

    rule: str
    name: str
    severity: str
    message: str
    path: str
    pos: SourcePos
    op_index: int | None = None
    notes: list[Note] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def format(self) -> str:
        """``file:line:col: severity[RULE] message`` plus ``note:`` lines."""
        lines = [f"{self.path}:{self.pos.line}:{self.pos.col}: {self.severity}[{self.rule}] {self.message}"]
        for n in self.notes:
            lines.append(f"{self.path}:{n.pos.line}:{n.pos.col}: note: {n.message}")
        return "\n".join(lines)
