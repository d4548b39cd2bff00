"""The figures a module's summary reports (text summary line, JSON ``summary``), as small plain data.

:func:`module_summary` reads them off an :class:`~ttanalyze.analysis.Analysis`; :mod:`ttanalyze.shards`
merges the summaries of a module's function groups analyzed in separate processes into the one the
whole module's analysis would give.  Both reports render from this record, so the serial and the split
paths cannot drift apart.  Sizes in bytes (per core for L1, per bank for DRAM); op indices into
:attr:`Program.ops`; lines 1-based in the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..analysis import Analysis


@dataclass(frozen=True)
class Peak:
    """One op's memory figure: ``bytes`` at op ``op_index`` (file line ``line``); for the L1 peak also its parts
    (live tensors, the op's own L1 buffers, its circular buffers: ``bytes`` is their sum)."""

    bytes: int
    op_index: int
    line: int
    tensors: int = 0
    op_buffers: int = 0
    cbs: int = 0


@dataclass(frozen=True)
class ModuleSummary:
    """What the summaries of one analyzed module read.

    Attributes:
        path / module_name / module_lines: as in :class:`~ttanalyze.ir.model.Program`.
        arch: the :class:`~ttanalyze.arch.Arch` analyzed for.
        mesh: the program's :class:`~ttanalyze.mesh.Mesh`, or None.
        ops / functions: counts.
        peak_l1: the first op with the most L1 per core (:attr:`MemoryTimeline.peak_l1`).
        peak_dram: the first op with the most DRAM per bank in live tensors.
        dram_extent / l1_extent: the first op with the widest address range in use (allocator replay).
    """

    path: str
    module_name: str | None
    module_lines: tuple[int, int] | None
    arch: Any
    mesh: Any
    ops: int
    functions: int
    peak_l1: Peak | None
    peak_dram: Peak | None
    dram_extent: Peak | None
    l1_extent: Peak | None


def module_summary(a: "Analysis") -> ModuleSummary:
    """The :class:`ModuleSummary` of an analysis (one pass over its memory points per figure)."""
    ops = a.program.ops
    points = a.memory.points.values()

    def widest(attr: str) -> Peak | None:
        best = max(points, key=attrgetter(attr), default=None)  # the first of the widest
        return Peak(getattr(best, attr), best.op_index, ops[best.op_index].pos.line) if best is not None else None

    p = a.memory.peak_l1
    peak_l1 = (Peak(p.l1_total_per_core, p.op_index, ops[p.op_index].pos.line,
                    p.l1_per_core, p.op_l1_buffers_per_core, p.cb_per_core) if p is not None else None)
    return ModuleSummary(a.program.path, a.program.module_name, a.program.module_lines, a.arch, a.mesh, len(ops),
                         len(a.program.funcs), peak_l1, widest("dram_per_bank"), widest("dram_extent_per_bank"),
                         widest("l1_extent_per_core"))
